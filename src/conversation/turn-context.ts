import {
  buildDocumentContext,
  citationInstructions,
  type DocumentContext,
  pageImageTokens,
} from '../documents/document-context.ts';
import type { ChatMessage } from '../gateway/chat-types.ts';
import {
  type ContextFit,
  estimateTokens,
  fitToContext,
  promptBudgetTokens,
  tokensPerImage,
} from './context-budget.ts';
import type { EngineDependencies } from './engine-dependencies.ts';
import type { LoadedImages } from './image-intake.ts';
import { withSummaryNote } from './summary-folding.ts';
import type { IncomingTurn, StoredTurn } from './turn.ts';
import type { TurnFacts } from './turn-facts.ts';

/** The context a turn's reply is asked in, fitted to a model's window. */
export interface TurnContext {
  readonly fit: ContextFit;
  /** Fits the same context again for another model (the budget's fallback). */
  refit(model: string): ContextFit;
  /** What the person is told about the documents: cut, left out, unreadable. */
  readonly notices: readonly string[];
}

/**
 * The system prompt, the history (with the documents' text where they fit) and the new message,
 * fitted to the model's context, and how to fit them again for another model.
 */
export async function fitTurnToContext({
  dependencies,
  turn,
  facts,
  history,
  model,
  memoryBlock,
}: {
  dependencies: EngineDependencies;
  turn: IncomingTurn;
  facts: TurnFacts;
  history: StoredTurn[];
  model: string;
  /** What parley remembers for the person, as a block of the system prompt ('' for none). */
  memoryBlock: string;
}): Promise<TurnContext> {
  const { gateway, defaults } = dependencies;
  const text = `${turn.author.name}: ${turn.text}`;
  const systemPrompt = systemPromptOf({ dependencies, facts, memoryBlock });
  const contextTokens = gateway.capabilitiesOf(model).contextTokens;
  const documentContext = await buildDocumentContext({
    documents: facts.read.documents,
    history,
    reader: dependencies.reading?.reader,
    maxCharacters: dependencies.reading?.maxContextCharacters ?? 0,
    roomTokens: roomForDocumentsTokens({ dependencies, facts, contextTokens, systemPrompt, text }),
  });
  const newTurn = newTurnMessage({ text, images: facts.images, documentContext });
  const fitFor = (windowTokens: number) =>
    fitToContext({
      systemPrompt: documentContext.hasDocuments
        ? `${systemPrompt}\n\n${citationInstructions}`
        : systemPrompt,
      history: documentContext.history,
      newTurn,
      contextTokens: windowTokens,
      replyMaxTokens: defaults.replyMaxTokens,
    });
  // Never more context than the budget held for: the smaller of the two models' windows.
  const refit = (other: string) =>
    fitFor(Math.min(contextTokens, gateway.capabilitiesOf(other).contextTokens));
  return { fit: fitFor(contextTokens), refit, notices: documentContext.notices };
}

/** The conversation's prompt, else the place's, else the default; then memory, then the summary's note. */
function systemPromptOf({
  dependencies,
  facts,
  memoryBlock,
}: {
  dependencies: EngineDependencies;
  facts: TurnFacts;
  memoryBlock: string;
}): string {
  const configuredPrompt =
    facts.conversationSettings.systemPrompt ??
    facts.placeSettings?.systemPrompt ??
    dependencies.defaults.systemPrompt;
  return withSummaryNote(
    memoryBlock === '' ? configuredPrompt : `${configuredPrompt}\n\n${memoryBlock}`,
    facts.summary,
  );
}

/** What the documents may fill: the prompt's budget less the system prompt, the message and the pictures. */
function roomForDocumentsTokens({
  dependencies,
  facts,
  contextTokens,
  systemPrompt,
  text,
}: {
  dependencies: EngineDependencies;
  facts: TurnFacts;
  contextTokens: number;
  systemPrompt: string;
  text: string;
}): number {
  return (
    promptBudgetTokens({ contextTokens, replyMaxTokens: dependencies.defaults.replyMaxTokens }) -
    estimateTokens({ role: 'system', content: `${systemPrompt}\n\n${citationInstructions}` }) -
    estimateTokens({ role: 'user', content: text }) -
    facts.images.parts.length * tokensPerImage -
    pageImageTokens(facts.read.documents)
  );
}

/** The person's message as the model gets it: their words, the documents' text, then the pictures. */
function newTurnMessage({
  text,
  images,
  documentContext,
}: {
  text: string;
  images: LoadedImages;
  documentContext: DocumentContext;
}): ChatMessage {
  const fullText = documentContext.text === '' ? text : `${text}\n\n${documentContext.text}`;
  const pictureParts = [...images.parts, ...documentContext.imageParts];
  return {
    role: 'user',
    content: pictureParts.length === 0 ? fullText : [{ type: 'text', text: fullText }, ...pictureParts],
  };
}

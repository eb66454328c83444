import type { PlaceSettings } from '../administration/place-settings.ts';
import type { Surface } from '../delivery/surface.ts';
import { describeDocument, pageImageTokens } from '../documents/document-context.ts';
import type { ReadDocument } from '../documents/document-reader.ts';
import type { MemoryMode } from '../environment/spend-access-values.ts';
import type { ToolStep } from '../gateway/chat-types.ts';
import type { Logger } from '../log.ts';
import type { MemoryNote } from '../memory/memory-book.ts';
import { memoryBlockFor, memoryBlockOf } from '../memory/memory-prompt.ts';
import { renderNotice } from '../notices/render-notice.ts';
import type { ContextFit } from './context-budget.ts';
import type { ConversationSummary } from './conversation-summaries.ts';
import type { EngineDependencies } from './engine-dependencies.ts';
import type { HistoryRead } from './history-store.ts';
import type { LoadedImages } from './image-intake.ts';
import type { ReplyRequest } from './reply-types.ts';
import { unsummarisedTurns } from './summary-folding.ts';
import type { DocumentReference, IncomingTurn, StoredTurn } from './turn.ts';
import { fitTurnToContext } from './turn-context.ts';
import { readTurnFacts, type TurnFacts } from './turn-facts.ts';

/** A turn made ready for the gateway: which model, which messages, what the person should be told. */
export interface PreparedTurn {
  readonly model: string;
  readonly fit: ContextFit;
  /** Fits the context again for another model (the budget's fallback). */
  refit(model: string): ContextFit;
  readonly images: LoadedImages;
  readonly documents: readonly ReadDocument[];
  readonly notices: string[];
  /** How many turns at the end of history this reply replaces (regenerate): 0 or 2. */
  readonly replacedTurnCount: number;
  readonly surface: Surface;
  /** The conversation's history as stored when the turn was prepared: the reply is appended after it. */
  readonly history: HistoryRead;
  /** The conversation's rolling summary, as it was when the turn was prepared. */
  readonly summary: ConversationSummary | undefined;
  /** The place's settings, read once for the turn; undefined for an engine without places. */
  readonly placeSettings: PlaceSettings | undefined;
  /** MEMORY at the place (off where no place settings are known). */
  readonly memoryMode: MemoryMode;
  /** The model gets the memory tools; otherwise the held extraction keeps memory after the reply. */
  readonly isMemoryKeptByTools: boolean;
  /** The place's tool rules let this person have memory kept at all (TOOLS, TOOL_ROLE_IDS). */
  readonly isMemoryAllowed: boolean;
}

/** How the reply keeps memory, and the block of the system prompt that tells the model what it has. */
interface TurnMemory {
  readonly memoryMode: MemoryMode;
  readonly isMemoryKeptByTools: boolean;
  readonly isMemoryAllowed: boolean;
  readonly memoryBlock: string;
}

/**
 * Prepares a turn for the gateway: reads its settings, history, images and documents, chooses the
 * model, and fits the system prompt, the history and the new message into the model's context.
 * Throws when the conversation's stores cannot be read.
 */
export async function prepareTurn({
  dependencies,
  request,
  logger,
  showStep,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  logger: Logger;
  showStep: (step: ToolStep) => void;
}): Promise<PreparedTurn> {
  const { turn } = request;
  const facts = await readTurnFacts({ dependencies, request, logger, showStep });
  const replacedTurnCount = replacedTurnCountOf({ turns: facts.storedTurns, request });
  // Turns the summary holds reach the model through it, not again one by one.
  const history = unsummarisedTurns(
    facts.storedTurns.slice(0, facts.storedTurns.length - replacedTurnCount),
    facts.summary,
  );
  const model = chooseModel({ dependencies, facts });
  const memory = await memoryOfTurn({
    dependencies,
    turn,
    model,
    placeSettings: facts.placeSettings,
    notes: facts.memoryNotes,
  });
  const context = await fitTurnToContext({
    dependencies,
    turn,
    facts,
    history,
    model,
    memoryBlock: memory.memoryBlock,
  });
  const { fit } = context;
  const notices = [
    ...(turn.notices ?? []),
    ...facts.images.notices,
    ...facts.read.notices,
    ...context.notices,
  ];
  if (fit.droppedTurnCount > 0) {
    notices.push(renderNotice({ type: 'context-trimmed', droppedTurnCount: fit.droppedTurnCount }));
  }
  return {
    model,
    fit,
    refit: context.refit,
    images: facts.images,
    documents: facts.read.documents,
    notices,
    replacedTurnCount,
    surface: request.surface,
    history: facts.history,
    summary: facts.summary,
    placeSettings: facts.placeSettings,
    memoryMode: memory.memoryMode,
    isMemoryKeptByTools: memory.isMemoryKeptByTools,
    isMemoryAllowed: memory.isMemoryAllowed,
  };
}

/** The turn's documents as kept in history and offered to Regenerate: a name, a hash, a description. */
export function documentReferencesOf(documents: readonly ReadDocument[]): DocumentReference[] {
  return documents.map((read) => ({
    name: read.document.name,
    documentHash: read.documentHash,
    description: describeDocument(read.document),
  }));
}

/**
 * Regenerate replaces the reply it was pressed under, with the message before it, only while that
 * reply is still the last turn; otherwise the new reply is simply added at the end.
 */
function replacedTurnCountOf({
  turns,
  request,
}: {
  turns: readonly StoredTurn[];
  request: ReplyRequest;
}): number {
  const lastTurn = turns.at(-1);
  return request.replacesReplyCreatedAt !== undefined &&
    lastTurn?.role === 'assistant' &&
    lastTurn.createdAt === request.replacesReplyCreatedAt &&
    turns.at(-2)?.role === 'user'
    ? 2
    : 0;
}

/** The conversation's model, else the place's, else the default; the vision model for pictures it cannot see. */
function chooseModel({
  dependencies,
  facts,
}: {
  dependencies: EngineDependencies;
  facts: TurnFacts;
}): string {
  const { defaults } = dependencies;
  const model = facts.conversationSettings.model ?? facts.placeSettings?.chatModel ?? defaults.chatModel;
  const hasPictures = facts.images.parts.length > 0 || pageImageTokens(facts.read.documents) > 0;
  return hasPictures && !dependencies.gateway.capabilitiesOf(model).vision ? defaults.visionModel : model;
}

/** MEMORY at the place, whether the model keeps it with tools or the held extraction does, and its block. */
async function memoryOfTurn({
  dependencies,
  turn,
  model,
  placeSettings,
  notes,
}: {
  dependencies: EngineDependencies;
  turn: IncomingTurn;
  model: string;
  placeSettings: PlaceSettings | undefined;
  /** The notes read with the turn's facts; undefined: read here. */
  notes: readonly MemoryNote[] | undefined;
}): Promise<TurnMemory> {
  const { tools } = dependencies;
  const memoryMode = placeSettings?.memory ?? 'off';
  const isMemoryKeptByTools =
    memoryMode !== 'off' &&
    tools !== undefined &&
    placeSettings !== undefined &&
    tools.offersMemoryTools({ model, actor: turn.actor, settings: placeSettings });
  const isMemoryAllowed =
    tools === undefined ||
    placeSettings === undefined ||
    tools.allowsMemoryTools({ actor: turn.actor, settings: placeSettings });
  const keptBy = isMemoryKeptByTools ? 'tools' : 'extraction';
  const memoryBlock = !dependencies.memory
    ? ''
    : notes === undefined
      ? await memoryBlockFor({
          book: dependencies.memory,
          mode: memoryMode,
          actor: turn.actor,
          conversationKey: turn.conversationKey,
          keptBy,
        })
      : memoryBlockOf({ notes, mode: memoryMode, actor: turn.actor, keptBy });
  return { memoryMode, isMemoryKeptByTools, isMemoryAllowed, memoryBlock };
}

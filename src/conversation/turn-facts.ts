import type { PlaceSettings } from '../administration/place-settings.ts';
import { readTurnDocumentsAsStep } from '../documents/reading-step.ts';
import type { TurnDocuments } from '../documents/turn-documents.ts';
import type { ToolStep } from '../gateway/chat-types.ts';
import type { Logger } from '../log.ts';
import type { MemoryNote } from '../memory/memory-book.ts';
import { readMemoryNotes } from '../memory/memory-prompt.ts';
import { traceHistoryLoad, traceStep } from '../tracing/turn-spans.ts';
import type { ConversationSummary } from './conversation-summaries.ts';
import { clockOf, type EngineDependencies } from './engine-dependencies.ts';
import type { HistoryRead } from './history-store.ts';
import { type LoadedImages, loadImages } from './image-intake.ts';
import type { ReplyRequest } from './reply-types.ts';
import type { ConversationSettings } from './settings-store.ts';
import { type ConversationKey, placeOfConversation, type StoredTurn } from './turn.ts';
import { unexpiredHistory } from './unexpired-history.ts';

/** What a turn is prepared from, read once and in parallel. */
export interface TurnFacts {
  readonly conversationSettings: ConversationSettings;
  readonly placeSettings: PlaceSettings | undefined;
  /** The conversation's history as the model may still see it: expired turns are gone. */
  readonly storedTurns: StoredTurn[];
  /** The history as stored, read once for the turn: the reply is appended after it. */
  readonly history: HistoryRead;
  readonly summary: ConversationSummary | undefined;
  /**
   * The memory notes of the turn, read beside the rest when the door's reading of the place's
   * settings said whether memory is on; undefined: read as the turn is prepared.
   */
  readonly memoryNotes: readonly MemoryNote[] | undefined;
  /** The attached images and those the message's links led to. */
  readonly images: LoadedImages;
  readonly read: TurnDocuments;
}

/** The settings, history, summary, images and documents of the turn, all read at once. */
export async function readTurnFacts({
  dependencies,
  request,
  logger,
  showStep,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  logger: Logger;
  showStep: (step: ToolStep) => void;
}): Promise<TurnFacts> {
  const { turn } = request;
  const [conversationSettings, placeSettings, history, attachedImages, read, loadedSummary, memoryNotes] =
    await Promise.all([
      dependencies.settings.get(turn.conversationKey),
      request.placeSettings ?? dependencies.places?.settingsAt(placeOfConversation(turn.conversationKey)),
      readHistoryTraced(dependencies, turn.conversationKey),
      loadImages({ attachments: turn.images, maxBytes: dependencies.defaults.maxImageBytes, logger }),
      traceStep('documents read', () =>
        readTurnDocumentsAsStep({ reading: dependencies.reading, turn, signal: request.signal, showStep }),
      ),
      dependencies.folding?.summaries.get(turn.conversationKey),
      // Known at the door, the place's memory setting lets the notes be read now, not after.
      dependencies.memory && request.placeSettings
        ? readMemoryNotes({
            book: dependencies.memory,
            mode: request.placeSettings.memory ?? 'off',
            actor: turn.actor,
            conversationKey: turn.conversationKey,
          })
        : undefined,
    ]);
  // Past HISTORY_RETENTION_DAYS is gone for the model now, not only after the next hourly sweep.
  const { turns: storedTurns, summary } = unexpiredHistory({
    turns: [...history.turns],
    summary: loadedSummary,
    retentionDays: placeSettings?.retentionDays,
    nowMs: clockOf(dependencies)().getTime(),
  });
  const images = await withLinkImages({ images: attachedImages, read, dependencies, logger });
  return { conversationSettings, placeSettings, storedTurns, history, summary, memoryNotes, images, read };
}

/** The conversation's history, read once for the turn, in its 'history load' span. */
async function readHistoryTraced(
  dependencies: EngineDependencies,
  key: ConversationKey,
): Promise<HistoryRead> {
  let history: HistoryRead = { head: undefined, turns: [] };
  await traceHistoryLoad(async () => {
    history = await dependencies.history.read(key);
    return history.turns;
  });
  return history;
}

// Images that links in the message led to join the attached ones, checked the same way.
async function withLinkImages({
  images,
  read,
  dependencies,
  logger,
}: {
  images: LoadedImages;
  read: TurnDocuments;
  dependencies: EngineDependencies;
  logger: Logger;
}): Promise<LoadedImages> {
  if (read.linkImages.length === 0) return images;
  const linked = await loadImages({
    attachments: read.linkImages,
    maxBytes: dependencies.defaults.maxImageBytes,
    logger,
  });
  return {
    parts: [...images.parts, ...linked.parts],
    references: [...images.references, ...linked.references],
    notices: [...images.notices, ...linked.notices],
  };
}

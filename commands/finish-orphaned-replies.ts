import type { HistoryStore } from '../src/conversation/history-store.ts';
import type { JournalEntry, SurfaceAddress } from '../src/conversation/reply-journal.ts';
import type { StoredTurn } from '../src/conversation/turn.ts';
import { appendNotes } from '../src/delivery/reply-notes.ts';
import type { Surface } from '../src/delivery/surface.ts';
import { encodeActionId } from './action-store.ts';
import type { CommandServices } from './define-command.ts';

/** Under a reply whose process died mid-stream, once a restarted parley has found it. */
export const interruptedByRestartNote = '⚠ interrupted by a restart — press Regenerate to ask again';

/** Under the progress line of a command (a drawing) whose process died before it answered. */
export const stoppedByRestartNote =
  '⚠ stopped: parley restarted before this was done — please run the command again';

/**
 * Finishes the replies a dead process left behind on one platform: each message keeps the text it
 * showed, the last one gets a note and a Regenerate button, Stop buttons go, and the exchange is
 * recorded in history as interrupted. Called by an adapter once it is connected; a reply the
 * adapter can no longer reach (an expired interaction) is still recorded and forgotten.
 */
export async function finishOrphanedReplies({
  services,
  platform,
  surfaceAt,
  claim = async () => true,
}: {
  services: CommandServices;
  platform: string;
  /**
   * Resolves true for the one process that may finish the record `journalKey`; several live
   * processes sweep the same shared journal, and a reply must get its note once.
   */
  claim?: (journalKey: string) => Promise<boolean>;
  /**
   * A surface able to edit the reply's messages at `address` (their last known texts come along, for
   * platforms that must resend a text to change its buttons), or undefined when they cannot be reached.
   */
  surfaceAt: (orphan: {
    address: SurfaceAddress;
    messages: JournalEntry['messages'];
  }) => Surface | undefined | Promise<Surface | undefined>;
}): Promise<{ finishedCount: number }> {
  const logger = services.logger.child({ component: 'orphaned-replies', platform });
  let orphans: Awaited<ReturnType<CommandServices['journal']['listOrphans']>>;
  try {
    orphans = await services.journal.listOrphans(platform);
  } catch (error) {
    logger.error({ err: error }, 'could not read the journal of replies in flight');
    return { finishedCount: 0 };
  }
  let finishedCount = 0;
  for (const { key, entry } of orphans) {
    try {
      if (!(await claim(key))) continue;
      // In the conversation's order: a live process may be answering its next turn, and the
      // interrupted exchange must not be written into history in the middle of that.
      // A platform with many workspaces finds the client of the reply's workspace first.
      const surface = await surfaceAt({ address: entry.address, messages: entry.messages });
      await services.engine.runInOrder(entry.conversationKey, () =>
        finishOrphan({ services, entry, surface }),
      );
      await services.journal.remove(key);
      finishedCount += 1;
    } catch (error) {
      logger.warn(
        { err: error, conversationKey: entry.conversationKey },
        'could not finish an orphaned reply',
      );
    }
  }
  if (finishedCount > 0) logger.info({ finishedCount }, 'finished replies interrupted by a restart');
  return { finishedCount };
}

/**
 * How long a process's claim on an orphan keeps the others off it: long enough to finish it, short
 * enough that a claim whose process died too is taken up again.
 */
export const orphanClaimTtlMs = 5 * 60_000;

/**
 * Finishes orphaned replies now and, with a shared store, again every `orphanSweepIntervalMs` of the
 * journal, so replies of a process that died are finished by the processes still running (a single
 * process on a file store finishes them at its next start). Returns the function that stops it.
 */
export function keepFinishingOrphanedReplies(
  options: Parameters<typeof finishOrphanedReplies>[0],
): () => void {
  let isSweeping = false;
  const sweep = () => {
    if (isSweeping) return;
    isSweeping = true;
    void finishOrphanedReplies(options).finally(() => {
      isSweeping = false;
    });
  };
  sweep();
  const intervalMs = options.services.journal.orphanSweepIntervalMs;
  if (intervalMs === undefined) return () => {};
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Records the exchange (a store failure keeps the journal record for the next start), then finishes
 * the messages; messages that cannot be reached any more (an expired interaction, a deleted channel)
 * are logged and given up, since trying again at every start would never succeed.
 */
async function finishOrphan({
  services,
  entry,
  surface,
}: {
  services: CommandServices;
  entry: JournalEntry;
  surface: Surface | undefined;
}): Promise<void> {
  if (entry.kind === 'progress') {
    if (surface === undefined) return;
    await finishProgressLine({ entry, surface }).catch((error: unknown) => {
      services.logger.warn(
        { err: error, conversationKey: entry.conversationKey },
        'could not finish an orphaned progress line',
      );
    });
    return;
  }
  const replyCreatedAt = await recordInterruptedExchange(services.history, entry);
  if (surface === undefined) return;
  await finishMessages({ services, entry, surface, replyCreatedAt }).catch((error: unknown) => {
    services.logger.warn(
      { err: error, conversationKey: entry.conversationKey },
      'could not finish the messages of an orphaned reply; its turn is recorded',
    );
  });
}

async function finishMessages({
  services,
  entry,
  surface,
  replyCreatedAt,
}: {
  services: CommandServices;
  entry: JournalEntry;
  surface: Surface;
  replyCreatedAt: string | undefined;
}): Promise<void> {
  const token = await services.actionStore.save({
    kind: 'chat',
    conversationKey: entry.conversationKey,
    author: { id: entry.turn.authorId, name: entry.turn.authorName },
    text: entry.turn.text,
    imageDataUris: [],
    ...(replyCreatedAt === undefined ? {} : { replyCreatedAt }),
  });
  const regenerate = {
    id: encodeActionId({ verb: 'chat.regenerate', token }),
    label: 'Regenerate',
    style: 'secondary' as const,
  };
  const last = entry.messages.at(-1);
  if (last === undefined) return;
  for (const message of entry.messages.slice(0, -1)) await surface.setActions?.(message, []);
  const shownText = await shownTextOf(surface, last, services);
  const [lastText = shownText, ...overflow] = appendNotes({
    messageTexts: [shownText],
    notes: [interruptedByRestartNote],
    maxLength: surface.limits.maxMessageLength,
  });
  await surface.edit(last, lastText, { isFinal: true });
  let buttonsMessage: { id: string } = last;
  for (const text of overflow) {
    if (buttonsMessage === last) await surface.setActions?.(last, []);
    buttonsMessage = await surface.post(text);
  }
  await surface.setActions?.(buttonsMessage, [regenerate]);
}

/**
 * What the reply's last message shows: the journal's text, or the platform's where it can tell and
 * the screen is ahead of the journal (written at most every few seconds). A text that does not go
 * on from the journal's (a code fence closed for the moment) or already has the note (a recovery
 * that died halfway) is not taken.
 */
async function shownTextOf(
  surface: Surface,
  message: JournalEntry['messages'][number],
  services: CommandServices,
): Promise<string> {
  const shown = await surface.readText?.(message).catch((error: unknown) => {
    services.logger.info({ err: error }, 'could not read what an orphaned reply shows; using the journal');
    return undefined;
  });
  if (shown === undefined || shown.includes(interruptedByRestartNote)) return message.text;
  return shown.startsWith(message.text) ? shown : message.text;
}

/** A command's progress line says the command stopped; nothing was said, so history is untouched. */
async function finishProgressLine({
  entry,
  surface,
}: {
  entry: JournalEntry;
  surface: Surface;
}): Promise<void> {
  const line = entry.messages.at(-1);
  if (line === undefined) return;
  const [text = line.text] = appendNotes({
    messageTexts: [line.text],
    notes: [stoppedByRestartNote],
    maxLength: surface.limits.maxMessageLength,
  });
  await surface.edit(line, text, { isFinal: true });
}

/**
 * Adds the person's turn and the reply as far as it got, marked as interrupted, unless a run of this
 * recovery that died halfway already did. Returns the reply's `createdAt`, which Regenerate names.
 */
async function recordInterruptedExchange(
  history: HistoryStore,
  entry: JournalEntry,
): Promise<string | undefined> {
  if (!/\S/.test(entry.modelText)) return undefined;
  const stored = await history.load(entry.conversationKey);
  const isRecorded = stored.some((turn) => turn.role === 'assistant' && turn.createdAt === entry.startedAt);
  if (isRecorded) return entry.startedAt;
  const userTurn: StoredTurn = {
    role: 'user',
    authorId: entry.turn.authorId,
    authorName: entry.turn.authorName,
    text: entry.turn.text,
    images: [],
    createdAt: entry.startedAt,
  };
  const assistantTurn: StoredTurn = {
    role: 'assistant',
    authorId: 'parley',
    authorName: 'parley',
    text: entry.modelText,
    images: [],
    isInterrupted: true,
    createdAt: entry.startedAt,
  };
  await history.append(entry.conversationKey, [userTurn, assistantTurn]);
  return entry.startedAt;
}

import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { Logger } from '../log.ts';

/**
 * Where a reply's messages live on a platform, in the platform's own terms (a Discord channel id, a
 * Slack channel and thread): enough for the adapter to reach the messages again after a restart.
 */
export const surfaceAddressSchema = z.looseObject({ platform: z.string() });
export type SurfaceAddress = z.infer<typeof surfaceAddressSchema>;

const journalEntrySchema = z.object({
  /** A streamed reply, or the progress line of a command (a drawing) that answers in its place. */
  kind: z.enum(['reply', 'progress']).default('reply'),
  /** The process that writes it; a restarted parley has a new one. */
  processId: z.string(),
  /** When the writing process last said it is alive (ISO time); stale means it died. */
  heartbeatAt: z.iso.datetime(),
  startedAt: z.iso.datetime(),
  address: surfaceAddressSchema,
  conversationKey: z.string(),
  /** The person's turn, to record the interrupted exchange in history. */
  turn: z.object({ authorId: z.string(), authorName: z.string(), text: z.string() }),
  /** Each message of the reply with the text the platform last accepted for it. */
  messages: z.array(z.object({ id: z.string(), text: z.string() })),
  /** The model's text so far. */
  modelText: z.string(),
});

/** One reply in flight, as written to the store while it streams. */
export type JournalEntry = z.infer<typeof journalEntrySchema>;

/** What a reply in flight tells the journal each time the platform accepted a call. */
export interface JournalProgress {
  readonly messages: ReadonlyArray<{ readonly id: string; readonly text: string }>;
  readonly modelText: string;
}

/** The journal's handle on one reply. Every method swallows store errors: the reply matters more. */
export interface JournalRecord {
  update(progress: JournalProgress): void;
  /** The reply ended normally: it is no orphan. Resolves once the entry is gone. */
  end(): Promise<void>;
}

/**
 * A small record, in the store, of every reply being written: which messages, what they show, whose
 * turn. A reply that ends removes its record; one whose process was killed leaves it behind, and the
 * next start finds it and finishes the messages (see `recoverOrphanedReplies`).
 */
export interface ReplyJournal {
  begin(options: {
    address: SurfaceAddress;
    conversationKey: string;
    turn: JournalEntry['turn'];
    /** Default `reply`. */
    kind?: JournalEntry['kind'];
  }): JournalRecord;
  /**
   * Replies of `platform` whose process is gone: another process's are included only once its
   * heartbeat is older than `staleAfterMs`; with `isStoreShared` false every record of another
   * process is an orphan at once, since no other process can be writing to this store.
   */
  listOrphans(platform: string): Promise<Array<{ readonly key: string; readonly entry: JournalEntry }>>;
  remove(key: string): Promise<void>;
  /**
   * How often to look for orphans while running: only with a shared store, where a process that
   * died leaves replies another live process should finish; undefined otherwise (the next start of
   * the one process finishes them).
   */
  readonly orphanSweepIntervalMs: number | undefined;
  /** Stops the heartbeat timer. */
  close(): void;
}

/** How long a reply's heartbeat may be silent before it counts as orphaned, by default. */
const defaultStaleAfterMs = 20_000;
/**
 * How often a reply's record is written at most while only its texts change. Writing the whole
 * record at every post and edit of every reply cost about a tenth of the CPU at 200 replies at once
 * (docs/benchmarks.md, issue 24); a process killed mid-reply leaves a record at most this much
 * behind the screen, and the restart reads what a message shows where the platform tells
 * (`Surface.readText`). A new message is written at once: one the record does not name is lost.
 */
const defaultProgressWriteIntervalMs = 2_000;
/** A record is kept at most this long; a reply never takes so long, and this bounds any leftovers. */
const recordLifetimeMs = 24 * 60 * 60 * 1000;

export function createReplyJournal({
  store,
  isStoreShared,
  logger,
  staleAfterMs = defaultStaleAfterMs,
  progressWriteIntervalMs = defaultProgressWriteIntervalMs,
  now = () => new Date(),
}: {
  store: Keyv;
  /** True for a store several processes may use at once (Redis). */
  isStoreShared: boolean;
  logger: Logger;
  /**
   * How long a record's heartbeat may be silent before another process takes it for an orphan; a
   * live process renews its records every quarter of this.
   */
  staleAfterMs?: number;
  /** See {@link defaultProgressWriteIntervalMs}. */
  progressWriteIntervalMs?: number;
  now?: () => Date;
}): ReplyJournal {
  const processId = randomBytes(6).toString('base64url');
  const live = new Map<string, JournalEntry>();
  const heartbeatIntervalMs = staleAfterMs / 4;
  const write = (key: string, entry: JournalEntry) =>
    store.set(key, entry, recordLifetimeMs).catch((error: unknown) => {
      logger.warn({ err: error, key }, 'reply journal: could not write a record');
    });
  const heartbeat = setInterval(() => {
    const nowMs = now().getTime();
    for (const [key, entry] of live) {
      // A record written since the last beat already says the process is alive.
      if (nowMs - Date.parse(entry.heartbeatAt) < heartbeatIntervalMs) continue;
      const renewed = { ...entry, heartbeatAt: new Date(nowMs).toISOString() };
      live.set(key, renewed);
      void write(key, renewed);
    }
  }, heartbeatIntervalMs);
  heartbeat.unref();

  return {
    begin({ address, conversationKey, turn, kind = 'reply' }) {
      const key = `${address.platform}:${randomBytes(9).toString('base64url')}`;
      let entry: JournalEntry | undefined;
      let isEnded = false;
      const startedAt = now().toISOString();
      let writtenAtMs = Number.NEGATIVE_INFINITY;
      let writtenIds = '';
      let pendingWrite: ReturnType<typeof setTimeout> | undefined;
      const writeLatest = () => {
        pendingWrite = undefined;
        if (isEnded || entry === undefined) return;
        writtenAtMs = now().getTime();
        void write(key, entry);
      };
      return {
        update({ messages, modelText }) {
          if (isEnded || messages.length === 0) return;
          const ids = messages.map((message) => message.id).join(' ');
          entry = {
            kind,
            processId,
            heartbeatAt: now().toISOString(),
            startedAt,
            address,
            conversationKey,
            turn,
            messages: messages.map(({ id, text }) => ({ id, text })),
            modelText,
          };
          live.set(key, entry);
          const dueAtMs = writtenAtMs + progressWriteIntervalMs;
          if (ids !== writtenIds || now().getTime() >= dueAtMs) {
            writtenIds = ids;
            clearTimeout(pendingWrite);
            writeLatest();
          } else if (pendingWrite === undefined) {
            pendingWrite = setTimeout(writeLatest, dueAtMs - now().getTime());
            pendingWrite.unref();
          }
        },
        async end() {
          isEnded = true;
          clearTimeout(pendingWrite);
          live.delete(key);
          if (entry === undefined) return;
          await store.delete(key).catch((error: unknown) => {
            logger.warn({ err: error, key }, 'reply journal: could not remove a record');
          });
        },
      };
    },
    async listOrphans(platform) {
      const orphans: Array<{ key: string; entry: JournalEntry }> = [];
      const cutoffMs = now().getTime() - staleAfterMs;
      for await (const [key, value] of store.iterator?.(undefined) ?? []) {
        if (typeof key !== 'string' || !key.startsWith(`${platform}:`)) continue;
        const parsed = journalEntrySchema.safeParse(value);
        if (!parsed.success) {
          logger.warn({ key }, 'reply journal: dropping a record it cannot read');
          await store.delete(key).catch(() => undefined);
          continue;
        }
        const entry = parsed.data;
        if (entry.processId === processId) continue;
        const isStale = Date.parse(entry.heartbeatAt) < cutoffMs;
        if (!isStoreShared || isStale) orphans.push({ key, entry });
      }
      return orphans;
    },
    async remove(key) {
      await store.delete(key);
    },
    orphanSweepIntervalMs: isStoreShared ? staleAfterMs / 2 : undefined,
    close() {
      clearInterval(heartbeat);
    },
  };
}

import { randomBytes } from 'node:crypto';
import type Keyv from 'keyv';
import { z } from 'zod';
import { conversationKeyOf } from '../conversation/turn.ts';
import type { Logger } from '../log.ts';
import type { KeptData } from '../retention/kept-data.ts';
import { redactSecrets } from '../secrets/secret-detector.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import {
  type AuditEntry,
  type AuditKind,
  auditEntrySchema,
  maxAuditWhatCharacters,
  type NewAuditEntry,
} from './audit-entry.ts';

/** Which entries of one server or workspace to read, newest first. */
export interface AuditQuery {
  readonly platform: string;
  readonly workspace: string;
  /** Only deeds this person did, or that were done on their authority. */
  readonly personId?: string;
  readonly kind?: AuditKind;
  /** From this time on (ms since the epoch). */
  readonly sinceMs?: number;
  /** Before this time. */
  readonly untilMs?: number;
  /** Where the previous page ended (its `nextCursor`). */
  readonly cursor?: string;
  readonly limit: number;
}

export interface AuditPage {
  readonly entries: readonly AuditEntry[];
  /** Undefined on the last page. */
  readonly nextCursor: string | undefined;
  /** Entries a full day could not keep (the daily cap), in the days this page read. */
  readonly overflowed: number;
}

/**
 * The audit trail: an append-only record of what was done at each server or workspace and on whose
 * authority (configuration changes, refusals, tool calls and their approvals, scheduled runs and
 * pauses, writes to shared memory, /forget and /export). Admins read their own place's with /audit;
 * each person's own entries go into their /export; it is swept by the retention rules.
 */
export interface AuditLog {
  /** Appends one entry. Never rejects: a deed already done is not undone because its record failed. */
  record(entry: NewAuditEntry): Promise<void>;
  read(query: AuditQuery): Promise<AuditPage>;
  /** For the sweep (by age), /forget (names taken off) and /export (the person's own entries). */
  readonly keptData: KeptData;
}

/** The most entries one server keeps for one day; past it, entries are counted, not kept. */
const maxEntriesPerDay = 5_000;
/**
 * What the frequent kinds (tool calls, refusals, scheduled runs) may fill of a day, so the rare deeds
 * owners look for (a setting changed, a /forget, the shared notes) always find room.
 */
const maxRoutineEntriesPerDay = 4_000;
const routineKinds: ReadonlySet<AuditKind> = new Set([
  'tool-call',
  'access-refused',
  'budget-refused',
  'schedule-run',
]);
/**
 * Entries kept in one record: an entry reads and writes one page and the day's small record, never
 * the whole day (which at thousands of entries took hundreds of milliseconds a write).
 */
const entriesPerPage = 100;
const dayMs = 24 * 60 * 60_000;
const forgottenName = 'forgotten person';

/** A day of one place: how many entries it kept (in pages of `entriesPerPage`), and how many it could not. */
const dayRecordSchema = z.object({ kept: z.number(), overflowed: z.number() });
type DayRecord = z.infer<typeof dayRecordSchema>;
const pageSchema = z.array(auditEntrySchema);
const dayListSchema = z.array(z.string());

/** Days are UTC dates, so every process names the same day the same way. */
function dayOf(atMs: number): string {
  return new Date(atMs).toISOString().slice(0, 10);
}

function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

function pageCount(record: DayRecord): number {
  return Math.ceil(record.kept / entriesPerPage);
}

export function createAuditLog({
  store,
  lock,
  logger,
  now = () => Date.now(),
  minimumRetentionDays,
}: {
  /** Its own namespace (`audit`). */
  store: Keyv;
  /** Read-modify-write of one place's day at a time (shared across processes on Redis). */
  lock: KeyedLock;
  logger: Logger;
  now?: () => number;
  /**
   * AUDIT_RETENTION_DAYS: entries are kept at least this long even where the place keeps its history
   * for less; undefined: the place's HISTORY_RETENTION_DAYS alone decides.
   */
  minimumRetentionDays: number | undefined;
}): AuditLog {
  const placeKey = (platform: string, workspace: string) => `${platform}:${workspace}`;
  const dayKey = (place: string, day: string) => `day:${place}:${day}`;
  const pageKey = (place: string, day: string, page: number) => `page:${place}:${day}:${page}`;
  const daysKey = (place: string) => `days:${place}`;
  const placesKey = 'places';
  /** Days this process already listed, so a day's first entry is the only one that writes the lists. */
  const listedDays = new Set<string>();

  const readDay = async (place: string, day: string): Promise<DayRecord> => {
    const parsed = dayRecordSchema.safeParse(await store.get(dayKey(place, day)));
    return parsed.success ? parsed.data : { kept: 0, overflowed: 0 };
  };
  const readPage = async (place: string, day: string, page: number): Promise<AuditEntry[]> => {
    const parsed = pageSchema.safeParse(await store.get(pageKey(place, day, page)));
    return parsed.success ? parsed.data : [];
  };
  /** Every entry a day kept, oldest first. */
  const readWholeDay = async (place: string, day: string): Promise<AuditEntry[]> => {
    const record = await readDay(place, day);
    const pages = await Promise.all(
      Array.from({ length: pageCount(record) }, (_, page) => readPage(place, day, page)),
    );
    return pages.flat();
  };
  const readList = async (key: string): Promise<string[]> => {
    const parsed = dayListSchema.safeParse(await store.get(key));
    return parsed.success ? parsed.data : [];
  };
  const addToList = (key: string, value: string) =>
    lock.run(`audit-list:${key}`, async () => {
      const list = await readList(key);
      if (!list.includes(value)) await store.set(key, [...list, value].sort());
    });

  const append = async (entry: AuditEntry) => {
    const place = placeKey(entry.platform, entry.workspace);
    const day = dayOf(entry.atMs);
    await lock.run(`audit:${place}:${day}`, async () => {
      const record = await readDay(place, day);
      const cap = routineKinds.has(entry.kind) ? maxRoutineEntriesPerDay : maxEntriesPerDay;
      if (record.kept >= cap) {
        await store.set(dayKey(place, day), { ...record, overflowed: record.overflowed + 1 });
        return;
      }
      const page = Math.floor(record.kept / entriesPerPage);
      const entries = record.kept % entriesPerPage === 0 ? [] : await readPage(place, day, page);
      await store.set(pageKey(place, day, page), [...entries, entry]);
      await store.set(dayKey(place, day), { ...record, kept: record.kept + 1 });
    });
    const listed = `${place}:${day}`;
    if (!listedDays.has(listed)) {
      await addToList(daysKey(place), day);
      await addToList(placesKey, place);
      listedDays.add(listed);
    }
  };

  const isAbout = (entry: AuditEntry, personId: string) =>
    entry.actor.id === personId || entry.onBehalfOf?.id === personId;

  return {
    async record(newEntry) {
      const entry: AuditEntry = {
        ...newEntry,
        id: randomBytes(6).toString('base64url'),
        atMs: now(),
        // A line for admins: short, and never a credential someone typed into a setting or a prompt.
        what: redactSecrets({ text: newEntry.what }).slice(0, maxAuditWhatCharacters),
      };
      try {
        await append(entry);
      } catch (error) {
        logger.error({ err: error, kind: entry.kind, workspace: entry.workspace }, 'audit entry not kept');
      }
    },

    async read(query) {
      const place = placeKey(query.platform, query.workspace);
      const [cursorDay, cursorIndexText] = query.cursor?.split('/') ?? [];
      const cursorIndex = cursorIndexText === undefined ? undefined : Number(cursorIndexText);
      const days = (await readList(daysKey(place)))
        .filter((day) => query.sinceMs === undefined || dayStartMs(day) + dayMs > query.sinceMs)
        .filter((day) => query.untilMs === undefined || dayStartMs(day) < query.untilMs)
        .filter((day) => cursorDay === undefined || day <= cursorDay)
        .reverse();
      const entries: AuditEntry[] = [];
      let overflowed = 0;
      for (const day of days) {
        const record = await readDay(place, day);
        overflowed += record.overflowed;
        const dayEntries = await readWholeDay(place, day);
        // Newest first: from the end of the day, or from just before where the last page stopped.
        const startIndex =
          day === cursorDay && cursorIndex !== undefined ? cursorIndex - 1 : dayEntries.length - 1;
        for (let index = startIndex; index >= 0; index -= 1) {
          const entry = dayEntries[index];
          if (entry === undefined) continue;
          if (query.sinceMs !== undefined && entry.atMs < query.sinceMs) continue;
          if (query.untilMs !== undefined && entry.atMs >= query.untilMs) continue;
          if (query.kind !== undefined && entry.kind !== query.kind) continue;
          if (query.personId !== undefined && !isAbout(entry, query.personId)) continue;
          if (entries.length === query.limit) {
            return { entries, nextCursor: `${day}/${index + 1}`, overflowed };
          }
          entries.push(entry);
        }
      }
      return { entries, nextCursor: undefined, overflowed };
    },

    keptData: {
      name: 'audit',
      async sweep(context) {
        let removed = 0;
        for (const place of await readList(placesKey)) {
          const [platform = '', ...rest] = place.split(':');
          const workspace = rest.join(':');
          const historyCutoffMs = await context.cutoffMsFor(
            conversationKeyOf({ platform, workspace, channel: 'audit' }),
          );
          if (historyCutoffMs === undefined) continue;
          const cutoffMs =
            minimumRetentionDays === undefined
              ? historyCutoffMs
              : Math.min(historyCutoffMs, context.nowMs - minimumRetentionDays * dayMs);
          const days = await readList(daysKey(place));
          const expired = days.filter((day) => dayStartMs(day) + dayMs <= cutoffMs);
          for (const day of expired) {
            const record = await readDay(place, day);
            removed += record.kept;
            for (let page = 0; page < pageCount(record); page += 1)
              await store.delete(pageKey(place, day, page));
            await store.delete(dayKey(place, day));
            listedDays.delete(`${place}:${day}`);
          }
          if (expired.length > 0) {
            await lock.run(`audit-list:${daysKey(place)}`, async () => {
              const kept = (await readList(daysKey(place))).filter((day) => !expired.includes(day));
              await store.set(daysKey(place), kept);
            });
          }
        }
        return removed;
      },
      // The trail keeps what was done, for the owners; a forgotten person's name leaves it.
      async forget(request) {
        let renamed = 0;
        for (const place of await readList(placesKey)) {
          const [platform, ...rest] = place.split(':');
          const workspace = rest.join(':');
          if (platform !== request.person.platform) continue;
          if (request.workspace !== undefined && workspace !== request.workspace) continue;
          for (const day of await readList(daysKey(place))) {
            await lock.run(`audit:${place}:${day}`, async () => {
              const record = await readDay(place, day);
              for (let page = 0; page < pageCount(record); page += 1) {
                const entries = await readPage(place, day, page);
                const renamedEntries = entries.map((entry) => withoutName(entry, request.person.userId));
                const changed = renamedEntries.filter((entry, index) => entry !== entries[index]).length;
                if (changed > 0) await store.set(pageKey(place, day, page), renamedEntries);
                renamed += changed;
              }
            });
          }
        }
        return renamed;
      },
      async export(request) {
        const mine: AuditEntry[] = [];
        for (const place of await readList(placesKey)) {
          const [platform, ...rest] = place.split(':');
          const workspace = rest.join(':');
          if (platform !== request.person.platform) continue;
          if (request.workspace !== undefined && workspace !== request.workspace) continue;
          for (const day of await readList(daysKey(place))) {
            const entries = await readWholeDay(place, day);
            mine.push(...entries.filter((entry) => isAbout(entry, request.person.userId)));
          }
        }
        return mine.length === 0 ? undefined : mine;
      },
    },
  };
}

/** The entry with the person's name taken off (the same entry when it does not name them). */
function withoutName(entry: AuditEntry, personId: string): AuditEntry {
  if (entry.actor.id !== personId && entry.onBehalfOf?.id !== personId) return entry;
  return {
    ...entry,
    actor: entry.actor.id === personId ? { ...entry.actor, name: forgottenName } : entry.actor,
    ...(entry.onBehalfOf?.id === personId
      ? { onBehalfOf: { ...entry.onBehalfOf, name: forgottenName } }
      : {}),
  };
}

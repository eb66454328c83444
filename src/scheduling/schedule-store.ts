import type { Keyv } from 'keyv';
import { placeOfConversation } from '../conversation/turn.ts';
import type { Logger } from '../log.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import { type ScheduleRecord, scheduleRecordSchema } from './schedule-record.ts';

/**
 * Schedules kept in the store (a keyv namespace of their own), with an index per place and per
 * person so caps and lists read a few records, not all of them. Index changes go through the
 * store's record lock, so two processes adding at once cannot both pass a cap.
 */
export interface ScheduleStore {
  get(id: string): Promise<ScheduleRecord | undefined>;
  /** Writes a changed record (its place and owner never change). */
  put(record: ScheduleRecord): Promise<void>;
  /**
   * Adds a record unless `mayAdd` says no given the counts now (read under the lock); resolves with
   * the refusal, or undefined when added.
   */
  add(
    record: ScheduleRecord,
    mayAdd: (counts: { inPlace: number; ofOwner: number }) => string | undefined,
  ): Promise<string | undefined>;
  remove(id: string): Promise<void>;
  listInPlace(placeKey: string): Promise<ScheduleRecord[]>;
  listOfOwner(ownerKey: string): Promise<ScheduleRecord[]>;
  /** Every record: for the engine's start. */
  all(): AsyncIterable<ScheduleRecord>;
}

/** A place's key: its platform, workspace and channel (a thread's schedules count for its channel). */
export function placeKeyOf(conversationKey: string): string {
  const { platform, workspace, channel } = placeOfConversation(conversationKey);
  return `${platform}:${workspace}:${channel}`;
}

/** A person's key: the same id on two platforms is two people. */
export function ownerKeyOf(record: Pick<ScheduleRecord, 'conversationKey' | 'owner'>): string {
  return `${placeOfConversation(record.conversationKey).platform}:${record.owner.id}`;
}

const recordPrefix = 'schedule:';
const placeIndexPrefix = 'place:';
const ownerIndexPrefix = 'owner:';
const indexLockKey = 'schedules-index';

export function createScheduleStore({
  store,
  lock,
  logger,
}: {
  store: Keyv;
  lock: KeyedLock;
  logger: Logger;
}): ScheduleStore {
  const readIndex = async (key: string): Promise<string[]> => {
    const value: unknown = await store.get(key);
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  };
  const read = async (id: string): Promise<ScheduleRecord | undefined> => {
    const value: unknown = await store.get(`${recordPrefix}${id}`);
    if (value === undefined) return undefined;
    const parsed = scheduleRecordSchema.safeParse(value);
    if (!parsed.success) {
      logger.warn({ scheduleId: id }, 'schedules: a record could not be read; leaving it out');
      return undefined;
    }
    return parsed.data;
  };
  const listBy = async (indexKey: string) => {
    const ids = await readIndex(indexKey);
    const records = await Promise.all(ids.map(read));
    return records.filter((record): record is ScheduleRecord => record !== undefined);
  };
  return {
    get: read,
    async put(record) {
      await store.set(`${recordPrefix}${record.id}`, record);
    },
    add(record, mayAdd) {
      return lock.run(indexLockKey, async () => {
        const placeIndex = `${placeIndexPrefix}${placeKeyOf(record.conversationKey)}`;
        const ownerIndex = `${ownerIndexPrefix}${ownerKeyOf(record)}`;
        const [inPlace, ofOwner] = await Promise.all([readIndex(placeIndex), readIndex(ownerIndex)]);
        const refusal = mayAdd({
          inPlace: record.kind === 'place' ? inPlace.length : 0,
          ofOwner: ofOwner.length,
        });
        if (refusal !== undefined) return refusal;
        await store.set(`${recordPrefix}${record.id}`, record);
        await Promise.all([
          record.kind === 'place' ? store.set(placeIndex, [...inPlace, record.id]) : undefined,
          store.set(ownerIndex, [...ofOwner, record.id]),
        ]);
        return undefined;
      });
    },
    async remove(id) {
      const record = await read(id);
      await store.delete(`${recordPrefix}${id}`);
      if (record === undefined) return;
      await lock.run(indexLockKey, async () => {
        const placeIndex = `${placeIndexPrefix}${placeKeyOf(record.conversationKey)}`;
        const ownerIndex = `${ownerIndexPrefix}${ownerKeyOf(record)}`;
        const [inPlace, ofOwner] = await Promise.all([readIndex(placeIndex), readIndex(ownerIndex)]);
        await Promise.all([
          store.set(
            placeIndex,
            inPlace.filter((other) => other !== id),
          ),
          store.set(
            ownerIndex,
            ofOwner.filter((other) => other !== id),
          ),
        ]);
      });
    },
    listInPlace: (placeKey) => listBy(`${placeIndexPrefix}${placeKey}`),
    listOfOwner: (ownerKey) => listBy(`${ownerIndexPrefix}${ownerKey}`),
    async *all() {
      for await (const [key, value] of store.iterator?.(undefined) ?? []) {
        if (typeof key !== 'string' || !key.startsWith(recordPrefix)) continue;
        const parsed = scheduleRecordSchema.safeParse(value);
        if (parsed.success) yield parsed.data;
        else logger.warn({ key }, 'schedules: a record could not be read; leaving it out');
      }
    },
  };
}

import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { ConversationPlace } from '../conversation/turn.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import type { OverrideScope, OverrideValue } from './admin-settings.ts';

const changeSchema = z.object({
  name: z.string(),
  /** The new value; absent when the override was removed (back to the default). */
  value: z.unknown().optional(),
  changedById: z.string(),
  changedByName: z.string(),
  changedAt: z.iso.datetime(),
});
/** Who changed which setting, to what, when. */
export type OverrideChange = z.infer<typeof changeSchema>;

const recordSchema = z.object({
  values: z.record(z.string(), z.unknown()),
  changes: z.array(changeSchema),
});

/** The overrides in force at a place: the server's, and its channel's, which win. */
export interface PlaceOverrides {
  readonly server: Readonly<Record<string, OverrideValue>>;
  readonly channel: Readonly<Record<string, OverrideValue>>;
  /** The latest changes of both, newest first. */
  readonly changes: readonly (OverrideChange & { readonly scope: OverrideScope })[];
}

/**
 * What `/config` changed, per server (workspace) and per channel, in the bot's store: it survives
 * a restart and every process on one Redis reads the same. Each record keeps its latest changes.
 */
export interface OverrideStore {
  read(place: ConversationPlace): Promise<PlaceOverrides>;
  /** Sets (`value`) or removes (undefined) one override; resolves with the value it replaced. */
  change(request: {
    place: ConversationPlace;
    scope: OverrideScope;
    name: string;
    value: OverrideValue | undefined;
    changedBy: { readonly id: string; readonly name: string };
    at: Date;
  }): Promise<OverrideValue | undefined>;
  /** Every value one setting is overridden with, at any server or channel (a walk of every record). */
  valuesEverywhere(name: string): Promise<OverrideValue[]>;
}

const keptChanges = 20;

function keyOf(place: ConversationPlace, scope: OverrideScope): string {
  const server = `${place.platform}:${place.workspace}`;
  return scope === 'server' ? `server:${server}` : `channel:${server}:${place.channel}`;
}

export function createOverrideStore({ store, lock }: { store: Keyv; lock: KeyedLock }): OverrideStore {
  const readRecord = async (key: string) => {
    const parsed = recordSchema.safeParse(await store.get(key));
    return parsed.success ? parsed.data : { values: {}, changes: [] };
  };
  return {
    async read(place) {
      const [server, channel] = await Promise.all([
        readRecord(keyOf(place, 'server')),
        readRecord(keyOf(place, 'channel')),
      ]);
      const changes = [
        ...server.changes.map((change) => ({ ...change, scope: 'server' as const })),
        ...channel.changes.map((change) => ({ ...change, scope: 'channel' as const })),
      ].sort((first, second) => second.changedAt.localeCompare(first.changedAt));
      return {
        server: server.values as Record<string, OverrideValue>,
        channel: channel.values as Record<string, OverrideValue>,
        changes,
      };
    },
    async valuesEverywhere(name) {
      const values: OverrideValue[] = [];
      for await (const [, value] of store.iterator?.(undefined) ?? []) {
        const parsed = recordSchema.safeParse(value);
        if (parsed.success && name in parsed.data.values)
          values.push(parsed.data.values[name] as OverrideValue);
      }
      return values;
    },
    change: ({ place, scope, name, value, changedBy, at }) => {
      const key = keyOf(place, scope);
      return lock.run(key, async () => {
        const record = await readRecord(key);
        const previous = record.values[name] as OverrideValue | undefined;
        const values = { ...record.values };
        if (value === undefined) delete values[name];
        else values[name] = value;
        const change: OverrideChange = {
          name,
          ...(value === undefined ? {} : { value }),
          changedById: changedBy.id,
          changedByName: changedBy.name,
          changedAt: at.toISOString(),
        };
        await store.set(key, { values, changes: [change, ...record.changes].slice(0, keptChanges) });
        return previous;
      });
    },
  };
}

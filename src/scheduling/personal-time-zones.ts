import type Keyv from 'keyv';
import { z } from 'zod';
import type { Person } from '../retention/kept-data.ts';

const entrySchema = z.object({ timeZone: z.string().min(1), setAt: z.iso.datetime() });

/** A time zone a person chose for themself with /timezone, and when. */
export type PersonalTimeZone = z.infer<typeof entrySchema>;

/**
 * The time zone each person reads their own times in (/remind, /schedules), set by them with
 * /timezone, per platform. Only the person's own commands reach their entry: there is no way to
 * name someone else. /forget removes it and /export includes it, like everything kept about them.
 */
export interface PersonalTimeZones {
  of(person: Person): Promise<PersonalTimeZone | undefined>;
  /** The name must already be one `Intl` knows (see `timeZoneProblem`). */
  set(person: Person, timeZone: string, now: Date): Promise<void>;
  /** Forgets the choice; whether there was one. */
  clear(person: Person): Promise<boolean>;
}

export function createPersonalTimeZones({ store }: { store: Keyv }): PersonalTimeZones {
  const keyOf = (person: Person) => `${person.platform}:${person.userId}`;
  return {
    async of(person) {
      const parsed = entrySchema.safeParse(await store.get(keyOf(person)));
      return parsed.success ? parsed.data : undefined;
    },
    async set(person, timeZone, now) {
      await store.set(keyOf(person), { timeZone, setAt: now.toISOString() } satisfies PersonalTimeZone);
    },
    clear: (person) => store.delete(keyOf(person)),
  };
}

import type { Keyv } from 'keyv';
import { z } from 'zod';
import { placeOfConversation } from '../conversation/turn.ts';
import type { KeptData } from './kept-data.ts';

/** The fields of a journal record the sweep and /forget read (reply-journal.ts writes them). */
const journalRecordSchema = z.looseObject({
  conversationKey: z.string(),
  startedAt: z.iso.datetime(),
  turn: z.looseObject({ authorId: z.string() }),
});

/**
 * Replies in flight (reply-journal.ts): a record lives a day at most, but a file store keeps an
 * expired one until it is read. The sweep removes records past their place's cutoff or unreadable,
 * /forget the records of the person's turns.
 */
export function journalKeptData({ journalKeyv }: { journalKeyv: Keyv }): KeptData {
  const walk = async (isRemoved: (record: z.infer<typeof journalRecordSchema>) => Promise<boolean>) => {
    const doomed: string[] = [];
    for await (const [key, value] of journalKeyv.iterator?.(undefined) ?? []) {
      if (typeof key !== 'string') continue;
      const parsed = journalRecordSchema.safeParse(value);
      if (!parsed.success || (await isRemoved(parsed.data))) doomed.push(key);
    }
    if (doomed.length > 0) await journalKeyv.deleteMany(doomed);
    return doomed.length;
  };
  return {
    name: 'journal',
    sweep: (context) =>
      walk(async (record) => {
        const cutoffMs = await context.cutoffMsFor(record.conversationKey);
        return cutoffMs !== undefined && Date.parse(record.startedAt) < cutoffMs;
      }),
    forget: ({ person, workspace }) =>
      walk(async (record) => {
        const place = placeOfConversation(record.conversationKey);
        return (
          record.turn.authorId === person.userId &&
          place.platform === person.platform &&
          (workspace === undefined || place.workspace === workspace)
        );
      }),
  };
}

import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { KeptData } from './kept-data.ts';

/** A rating's key is `<conversation>|<reply createdAt>|<userId>` (reply-feedback.ts). */
function partsOf(key: string): { conversationKey: string; userId: string } | undefined {
  const parts = key.split('|');
  if (parts.length !== 3 || parts[0] === 'totals') return undefined;
  return { conversationKey: parts[0] ?? '', userId: parts[2] ?? '' };
}

const ratingSchema = z.looseObject({ rating: z.string(), model: z.string(), ratedAt: z.iso.datetime() });

/**
 * 👍/👎 ratings (reply-feedback.ts), one row per person and reply. The sweep removes rows past their
 * place's cutoff, /forget the person's rows, /export gives them. The per-workspace totals are
 * counts with no person in them, and stay.
 */
export function feedbackKeptData({ feedbackKeyv }: { feedbackKeyv: Keyv }): KeptData {
  const rows = async () => {
    const found: Array<{
      key: string;
      conversationKey: string;
      userId: string;
      value: z.infer<typeof ratingSchema>;
    }> = [];
    for await (const [key, value] of feedbackKeyv.iterator?.(undefined) ?? []) {
      const parts = typeof key === 'string' ? partsOf(key) : undefined;
      const parsed = ratingSchema.safeParse(value);
      if (parts && parsed.success) found.push({ key: key as string, ...parts, value: parsed.data });
    }
    return found;
  };
  const remove = async (keys: string[]) => {
    if (keys.length > 0) await feedbackKeyv.deleteMany(keys);
    return keys.length;
  };
  return {
    name: 'feedback',
    async sweep(context) {
      const doomed: string[] = [];
      for (const row of await rows()) {
        const cutoffMs = await context.cutoffMsFor(row.conversationKey);
        if (cutoffMs !== undefined && Date.parse(row.value.ratedAt) < cutoffMs) doomed.push(row.key);
      }
      return remove(doomed);
    },
    async forget({ person, workspace }) {
      const own = (await rows()).filter((row) => isPersons(row, person, workspace));
      return remove(own.map((row) => row.key));
    },
    async export({ person, workspace }) {
      return (await rows())
        .filter((row) => isPersons(row, person, workspace))
        .map((row) => ({ conversationKey: row.conversationKey, ...row.value }));
    },
  };
}

function isPersons(
  row: { conversationKey: string; userId: string },
  person: { platform: string; userId: string },
  workspace: string | undefined,
): boolean {
  const [platform, rowWorkspace] = row.conversationKey.split(':');
  return (
    row.userId === person.userId &&
    platform === person.platform &&
    (workspace === undefined || rowWorkspace === workspace)
  );
}

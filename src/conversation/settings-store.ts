import type { Keyv } from 'keyv';
import { z } from 'zod';
import type { ConversationKey } from './turn.ts';

const conversationSettingsSchema = z.object({
  model: z.string().min(1).optional(),
  systemPrompt: z.string().min(1).optional(),
});

/** What one conversation overrides of the process defaults. */
export type ConversationSettings = z.infer<typeof conversationSettingsSchema>;

export interface SettingsStore {
  get(key: ConversationKey): Promise<ConversationSettings>;
  update(key: ConversationKey, change: Partial<ConversationSettings>): Promise<ConversationSettings>;
  reset(key: ConversationKey): Promise<void>;
}

export function createSettingsStore({ store }: { store: Keyv }): SettingsStore {
  const get = async (key: ConversationKey): Promise<ConversationSettings> => {
    const parsed = conversationSettingsSchema.safeParse(await store.get(key));
    return parsed.success ? parsed.data : {};
  };
  return {
    get,
    async update(key, change) {
      const next = { ...(await get(key)), ...change };
      // An explicit undefined clears an override so the process default applies again.
      for (const name of Object.keys(next) as Array<keyof ConversationSettings>) {
        if (next[name] === undefined) delete next[name];
      }
      await store.set(key, next);
      return next;
    },
    async reset(key) {
      await store.delete(key);
    },
  };
}

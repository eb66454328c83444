import type { Keyv } from 'keyv';
import { placeOfConversation } from '../src/conversation/turn.ts';
import type { KeptData } from '../src/retention/kept-data.ts';
import type { ActionPayload, ActionStore } from './action-store.ts';

/** The action namespace also holds the images its payloads refer to (`image:<hash>`, `image-index`). */
const isImageKey = (key: string) => key.startsWith('image:') || key === 'image-index';

/**
 * Button payloads and the images kept for them, as kept data: they carry the text of a turn and
 * its images for Regenerate and Vary (seven days at most). The sweep removes payloads saved before
 * their place's cutoff and images unused since the strictest cutoff; /forget removes the person's
 * payloads (their turns, their drawings) and the images those kept.
 */
export function actionKeptData({
  actionKeyv,
  actionStore,
}: {
  actionKeyv: Keyv;
  actionStore: ActionStore;
}): KeptData {
  const payloads = async () => {
    const found: Array<{ token: string; payload: ActionPayload }> = [];
    for await (const [key] of actionKeyv.iterator?.(undefined) ?? []) {
      if (typeof key !== 'string' || isImageKey(key)) continue;
      const payload = await actionStore.load(key);
      if (payload) found.push({ token: key, payload });
    }
    return found;
  };
  return {
    name: 'buttons',
    async sweep(context) {
      const doomed: string[] = [];
      for (const { token, payload } of await payloads()) {
        // Payloads saved before `savedAt` existed live their seven days out.
        if (payload.savedAt === undefined) continue;
        const cutoffMs = await context.cutoffMsFor(payload.conversationKey);
        if (cutoffMs !== undefined && Date.parse(payload.savedAt) < cutoffMs) doomed.push(token);
      }
      if (doomed.length > 0) await actionKeyv.deleteMany(doomed);
      const images =
        context.sharedCutoffMs === undefined
          ? 0
          : await actionStore.images.remove({ usedBeforeMs: context.sharedCutoffMs });
      return doomed.length + images;
    },
    async forget({ person, workspace }) {
      const doomed: string[] = [];
      const imageHashes: string[] = [];
      for (const { token, payload } of await payloads()) {
        const place = placeOfConversation(payload.conversationKey);
        if (
          place.platform !== person.platform ||
          (workspace !== undefined && place.workspace !== workspace)
        ) {
          continue;
        }
        if (payload.kind === 'chat' && payload.author.id === person.userId) {
          doomed.push(token);
          imageHashes.push(...payload.images.map((image) => image.imageHash));
        } else if (payload.kind === 'imagine' && payload.askerId === person.userId) {
          doomed.push(token);
          for (const image of payload.drawnImages) if (image.kept) imageHashes.push(image.kept.imageHash);
          for (const reference of payload.references) {
            if ('imageHash' in reference) imageHashes.push(reference.imageHash);
          }
        }
      }
      if (doomed.length > 0) await actionKeyv.deleteMany(doomed);
      const images = imageHashes.length === 0 ? 0 : await actionStore.images.remove({ hashes: imageHashes });
      return doomed.length + images;
    },
  };
}

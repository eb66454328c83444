import type { Actor } from '../../src/access/actor.ts';
import type { ImagineActionPayload } from '../action-store.ts';
import { defineAction } from '../define-action.ts';
import type { CommandResponder, CommandServices } from '../define-command.ts';
import { drawImages } from '../draw-images.ts';
import { varyReferenceOf } from '../reference-images.ts';
import { loadPressedPayload } from './pressed-payload.ts';

/** Regenerate, under drawn images: the same request drawn again. */
export const regenerateImagesAction = defineAction({
  verb: 'imagine.regenerate',
  acknowledgement: 'new-answer',
  async run(context) {
    const payload = await loadPressedPayload({ ...context, kind: 'imagine' });
    if (payload) await redraw({ ...context, payload, varyIndex: undefined });
  },
});

/** Vary, under one drawn image: a variation of that image. */
export const varyImageAction = defineAction({
  verb: 'imagine.vary',
  acknowledgement: 'new-answer',
  async run(context) {
    const payload = await loadPressedPayload({ ...context, kind: 'imagine' });
    if (payload) await redraw({ ...context, payload, varyIndex: context.pressed.index ?? 0 });
  },
});

async function redraw({
  payload,
  varyIndex,
  user,
  responder,
  services,
  signal,
}: {
  payload: ImagineActionPayload;
  /** Vary of this drawn image; Regenerate when undefined. */
  varyIndex: number | undefined;
  user: Actor;
  responder: CommandResponder;
  services: CommandServices;
  signal: AbortSignal;
}): Promise<void> {
  const varied =
    varyIndex === undefined ? undefined : varyReferenceOf({ payload, index: varyIndex, responder });
  if (varyIndex !== undefined && !varied) {
    await responder.send({ text: 'That image is no longer available to vary.', isPrivate: true });
    return;
  }
  const references = varied
    ? [varied]
    : payload.references.length > 0
      ? payload.references
      : (payload.referenceImages ?? []).map((link) => ({ link }));
  await services.engine.runInOrder(payload.conversationKey, () =>
    drawImages({
      services,
      user,
      responder,
      signal,
      request: {
        conversationKey: payload.conversationKey,
        prompt: payload.prompt,
        count: varied ? 1 : payload.count,
        aspectRatio: varied ? 'match_input_image' : payload.aspectRatio,
        outputFormat: payload.outputFormat,
        references,
        isButtonPress: true,
      },
    }),
  );
}

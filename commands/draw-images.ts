import { loadImages } from '../src/conversation/image-intake.ts';
import type { ImageAttachment } from '../src/conversation/turn.ts';
import type { Action } from '../src/delivery/card.ts';
import { toGatewayError } from '../src/gateway/gateway-error.ts';
import { fileExtensionOf, toDataUri } from '../src/images/image-type.ts';
import type { ImagineActionPayload } from './action-store.ts';
import { encodeActionId } from './action-store.ts';
import type { CommandResponder, CommandServices, CommandUser } from './define-command.ts';

/** What /imagine, its Regenerate and its Vary buttons ask for. */
export interface DrawRequest {
  readonly conversationKey: string;
  readonly prompt: string;
  readonly count: number;
  readonly aspectRatio: string | undefined;
  readonly outputFormat: 'png' | 'jpg';
  /** `data:` URIs or links of reference images (`image_input`). */
  readonly referenceImages: readonly string[];
}

const progressIntervalMs = 3_000;

/**
 * Draws images and delivers them as files, with progress while the model works, then Regenerate
 * and Vary buttons. Errors become one short message; the details go to the log.
 */
export async function drawImages({
  services,
  user,
  responder,
  request,
  signal,
}: {
  services: CommandServices;
  user: CommandUser;
  responder: CommandResponder;
  request: DrawRequest;
  signal: AbortSignal;
}): Promise<void> {
  const startedAt = services.now().getTime();
  const what = request.count === 1 ? '1 image' : `${request.count} images`;
  const showProgress = () => {
    const elapsedSeconds = Math.round((services.now().getTime() - startedAt) / 1000);
    return responder.progress(`🎨 drawing ${what}…${elapsedSeconds > 0 ? ` ${elapsedSeconds} s` : ''}`);
  };
  await showProgress();
  const timer = setInterval(() => {
    showProgress().catch((error: unknown) => services.logger.debug({ err: error }, 'progress update failed'));
  }, progressIntervalMs);
  let result: Awaited<ReturnType<CommandServices['gateway']['generateImages']>>;
  try {
    result = await services.gateway.generateImages({
      model: services.models.image,
      prompt: request.prompt,
      count: request.count,
      outputFormat: request.outputFormat,
      ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}),
      ...(request.referenceImages.length > 0 ? { referenceImages: request.referenceImages } : {}),
      signal,
    });
  } catch (error) {
    const failure = toGatewayError(error);
    services.logger.warn(
      { err: failure, kind: failure.kind, model: services.models.image },
      'image generation failed',
    );
    const isPrivateReference =
      failure.kind === 'invalid-request' &&
      request.referenceImages.some((image) => image.startsWith('data:'));
    await responder.send({
      text: `⚠ ${isPrivateReference ? referenceNeedsLinkMessage : failure.userMessage}`,
    });
    return;
  } finally {
    clearInterval(timer);
  }

  const seconds = ((services.now().getTime() - startedAt) / 1000).toFixed(1);
  const slug =
    request.prompt
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'image';
  const files = result.images.map((image, index) => ({
    name: `parley-${slug}-${index + 1}.${fileExtensionOf(image.mimeType)}`,
    mimeType: image.mimeType,
    bytes: image.bytes,
  }));
  const payload: ImagineActionPayload = {
    kind: 'imagine',
    conversationKey: request.conversationKey,
    prompt: request.prompt,
    count: request.count,
    ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}),
    outputFormat: request.outputFormat,
    referenceImages: [...request.referenceImages],
    // A link when the gateway gave one, since image_input takes links; the platform's own link
    // replaces a data: URI below once the files are posted.
    generatedImages: result.images.map((image) => image.sourceUrl ?? toDataUri(image)),
  };
  const token = await services.actionStore.save(payload);
  const actions: Action[] = [
    { id: encodeActionId({ verb: 'imagine.regenerate', token }), label: 'Regenerate', style: 'secondary' },
  ];
  if (services.gateway.capabilitiesOf(services.models.image).imageInput) {
    result.images.forEach((_, index) => {
      actions.push({
        id: encodeActionId({ verb: 'imagine.vary', token, index }),
        label: result.images.length === 1 ? 'Vary' : `Vary ${index + 1}`,
        style: 'primary',
      });
    });
  }
  const lines = [
    `**${request.prompt}**`,
    `_${user.name} · ${what} in ${seconds} s_`,
    ...result.notices.map((notice) => `_${notice}_`),
  ];
  const sent = await responder.send({ text: lines.join('\n'), files, actions });
  if (sent?.fileUrls && sent.fileUrls.length === result.images.length) {
    await services.actionStore.save({ ...payload, generatedImages: [...sent.fileUrls] }, { token });
  }
  await services.usage.record({
    userId: user.id,
    conversationKey: request.conversationKey,
    images: result.images.length,
    at: services.now(),
  });
}

const referenceNeedsLinkMessage =
  'The image model takes reference images only as links, and this image has no public link here (files on this platform are private).';

/**
 * A person's reference image for `image_input`: checked by its bytes, then sent as its public link
 * when the platform has one (the reference wants links), else as a `data:` URI, which some gateways
 * accept. Or a short reason it cannot be used.
 */
export async function referenceImageFor({
  attachment,
  maxBytes,
  services,
}: {
  attachment: ImageAttachment;
  maxBytes: number;
  services: CommandServices;
}): Promise<{ reference: string } | { problem: string }> {
  const checked = await imageDataUriOf({ attachment, maxBytes, services });
  if ('problem' in checked) return checked;
  return { reference: attachment.publicUrl ?? checked.dataUri };
}

/** A person's image as a `data:` URI for a vision model, or a short reason it cannot be used. */
export async function imageDataUriOf({
  attachment,
  maxBytes,
  services,
}: {
  attachment: ImageAttachment;
  maxBytes: number;
  services: CommandServices;
}): Promise<{ dataUri: string } | { problem: string }> {
  const loaded = await loadImages({ attachments: [attachment], maxBytes, logger: services.logger });
  const part = loaded.parts[0];
  if (part?.type === 'image_url') return { dataUri: part.image_url.url };
  return { problem: loaded.notices[0] ?? 'The reference image could not be read.' };
}

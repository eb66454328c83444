import { loadImages } from '../src/conversation/image-intake.ts';
import type { ImageAttachment } from '../src/conversation/turn.ts';
import { bytesOfDataUri, detectImageType, toDataUri } from '../src/images/image-type.ts';
import type { ImagineActionPayload, ReferenceImage } from './action-store.ts';
import type { CommandResponder, CommandServices } from './define-command.ts';

/**
 * Reference images (`image_input`). The gateway reference says `image_input` takes links, so an
 * image is sent as a link whenever there is one (Discord's CDN link, the gateway's own link to an
 * image it drew); a `data:` URI only when the model catalog says the image model takes them
 * (`imageInputDataUri`). Without either, the reference is refused before anything is drawn, in words.
 */

/** Why an image without a link cannot be a reference, for the person. */
export function referenceNeedsLinkMessage(model: string): string {
  return `The image model ${model} takes reference images only as links, and this image has no public link here (files sent in the terminal or on Slack are private). An admin can set imageInputDataUri in the model capabilities file if the gateway accepts data: URIs.`;
}

/** Whether the image model takes an image without a link (as a `data:` URI). */
export function acceptsImageWithoutLink(services: CommandServices): boolean {
  const capabilities = services.gateway.capabilitiesOf(services.models.image);
  return capabilities.imageInput && capabilities.imageInputDataUri;
}

/**
 * A person's reference image for `/imagine`: checked by its bytes, then its public link when the
 * platform has one, else its bytes kept for a `data:` URI where the model takes them, else a reason.
 */
export async function referenceImageFor({
  attachment,
  maxBytes,
  services,
}: {
  attachment: ImageAttachment;
  maxBytes: number;
  services: CommandServices;
}): Promise<{ reference: ReferenceImage } | { problem: string }> {
  const takesReferences = services.gateway.capabilitiesOf(services.models.image).imageInput;
  // Said before anything is downloaded: no link, and a model that takes nothing else.
  if (!attachment.publicUrl && takesReferences && !acceptsImageWithoutLink(services)) {
    return { problem: referenceNeedsLinkMessage(services.models.image) };
  }
  const checked = await imageDataUriOf({ attachment, maxBytes, services });
  if ('problem' in checked) return checked;
  if (attachment.publicUrl) return { reference: { link: attachment.publicUrl } };
  // A model that takes no reference draws from the prompt, with a note; nothing is worth keeping.
  if (!takesReferences) return { reference: { link: checked.dataUri } };
  const bytes = bytesOfDataUri(checked.dataUri);
  const mimeType = detectImageType(bytes);
  if (!mimeType) return { problem: 'The reference image could not be read.' };
  return { reference: await services.actionStore.images.keep({ bytes, mimeType }) };
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

/**
 * The `image_input` values of the references: links as they are, kept images as `data:` URIs
 * (only where the model takes them). Or why they cannot be sent, before any drawing starts.
 */
export async function resolveReferences({
  references,
  services,
}: {
  references: readonly ReferenceImage[];
  services: CommandServices;
}): Promise<{ images: string[] } | { problem: string }> {
  const images: string[] = [];
  const isDataUriAccepted = acceptsImageWithoutLink(services);
  for (const reference of references) {
    if ('link' in reference) {
      const isDataUri = reference.link.startsWith('data:');
      if (
        isDataUri &&
        !isDataUriAccepted &&
        services.gateway.capabilitiesOf(services.models.image).imageInput
      ) {
        return { problem: referenceNeedsLinkMessage(services.models.image) };
      }
      images.push(reference.link);
      continue;
    }
    if (!isDataUriAccepted) return { problem: referenceNeedsLinkMessage(services.models.image) };
    const kept = await services.actionStore.images.load(reference);
    if (!kept) return { problem: imageGoneMessage };
    images.push(toDataUri(kept));
  }
  return { images };
}

/** What a button says when the image it needs is no longer kept. */
export const imageGoneMessage =
  'The image this button needs is no longer kept (images are kept for 7 days, fewer when many are sent). Please send it again.';

/**
 * The reference for Vary of drawn image `index`, best first: the gateway's own link; the link of the
 * clicked message's file, fresh from the platform (Discord signs attachment links so they expire, and
 * re-signs them in every payload it sends); the link saved when the file was posted; the kept bytes.
 */
export function varyReferenceOf({
  payload,
  index,
  responder,
}: {
  payload: ImagineActionPayload;
  index: number;
  responder: CommandResponder;
}): ReferenceImage | undefined {
  const drawn = payload.drawnImages[index];
  const legacyLink = payload.generatedImages?.[index];
  if (!drawn) return legacyLink === undefined ? undefined : { link: legacyLink };
  if (drawn.gatewayLink) return { link: drawn.gatewayLink };
  const fresh = responder.clickedMessageFileUrls;
  const freshLink = fresh?.length === payload.drawnImages.length ? fresh[index] : undefined;
  if (freshLink) return { link: freshLink };
  if (drawn.postedLink) return { link: drawn.postedLink };
  return drawn.kept;
}

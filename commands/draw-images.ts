import type { Actor } from '../src/access/actor.ts';
import type { JournalRecord } from '../src/conversation/reply-journal.ts';
import type { Action } from '../src/delivery/card.ts';
import { retryFinalCall } from '../src/delivery/final-call-retries.ts';
import { toGatewayError } from '../src/gateway/gateway-error.ts';
import type { GeneratedImage } from '../src/gateway/image-generation.ts';
import { fileExtensionOf } from '../src/images/image-type.ts';
import type { Admission } from '../src/spending/spend-guard.ts';
import type { DrawnImage, ImagineActionPayload, ReferenceImage } from './action-store.ts';
import { encodeActionId } from './action-store.ts';
import { type CommandStep, startCommandStep } from './command-step.ts';
import type { CommandResponder, CommandResult, CommandServices } from './define-command.ts';
import { acceptsImageWithoutLink, resolveReferences } from './reference-images.ts';

/** What /imagine, its Regenerate and its Vary buttons ask for. */
export interface DrawRequest {
  readonly conversationKey: string;
  readonly prompt: string;
  readonly count: number;
  readonly aspectRatio: string | undefined;
  readonly outputFormat: 'png' | 'jpg';
  /** Reference images (`image_input`): links, or images kept in the store. */
  readonly references: readonly ReferenceImage[];
  /** A button press: what goes wrong is told to the presser only, and the buttons stay. */
  readonly isButtonPress?: boolean;
}

const progressIntervalMs = 3_000;
/** A drawing's budget hold outlives IMAGE_TIMEOUT_MS by this much, for the download after it. */
const imageHoldMarginMs = 60_000;

/**
 * Draws images and delivers them as files, with progress while the model works, then Regenerate
 * and Vary buttons. Errors become one short message; the details go to the log.
 */
export async function drawImages(drawing: Drawing): Promise<void> {
  const { services, user, responder, request } = drawing;
  const resolved = await resolveReferences({ references: request.references, services });
  if ('problem' in resolved) {
    await responder.send({ text: `⚠ ${resolved.problem}`, isPrivate: true });
    return;
  }
  const admission = await services.spending.admit({
    userId: user.id,
    roleIds: user.roleIds,
    conversationKey: request.conversationKey,
    model: services.models.image,
    work: {
      kind: 'images',
      count: request.count,
      aspectRatio: request.aspectRatio,
      outputFormat: request.outputFormat,
    },
    maxDurationMs: services.imageTimeoutMs + imageHoldMarginMs,
  });
  if (!admission.isAdmitted) {
    await responder.send({ text: `⚠ ${admission.message}`, isPrivate: true });
    return;
  }
  const startedAt = services.now().getTime();
  const what = request.count === 1 ? '1 image' : `${request.count} images`;
  // Where the platform shows a step of its own (Slack's task card in a thread), the drawing is one,
  // in progress and then complete or in error; elsewhere a progress line ticks the seconds.
  const step = await startCommandStep({ responder, id: 'draw-images', title: `🎨 drawing ${what}` });
  // The progress line is journaled, so a restart after a kill tells the person the drawing stopped.
  const journal = step.isShown ? undefined : journalProgress(drawing);
  const showProgress = async () => {
    if (step.isShown) return;
    const elapsedSeconds = Math.round((services.now().getTime() - startedAt) / 1000);
    const text = `🎨 drawing ${what}…${elapsedSeconds > 0 ? ` ${elapsedSeconds} s` : ''}`;
    const shown = await responder.progress(text);
    if (shown) journal?.update({ messages: [{ id: shown.id, text }], modelText: '' });
  };
  try {
    await drawAndSend(drawing, {
      referenceImages: resolved.images,
      startedAt,
      what,
      showProgress,
      admission,
      endStep: step.end,
    });
  } finally {
    // A drawing that broke off between its steps does not stay "in progress".
    await step.end('error');
    // Counts the images that came back; a drawing that ended before any did frees the hold.
    await admission.hold.settle();
    await journal?.end();
  }
}

/** One drawing: who asked, where it answers, and what it draws. */
interface Drawing {
  readonly services: CommandServices;
  readonly user: Actor;
  readonly responder: CommandResponder;
  readonly request: DrawRequest;
  readonly signal: AbortSignal;
}

function journalProgress({ services, responder, user, request }: Drawing): JournalRecord | undefined {
  const { address } = responder.surface;
  if (address === undefined) return undefined;
  return services.journal.begin({
    kind: 'progress',
    address,
    conversationKey: request.conversationKey,
    turn: { authorId: user.id, authorName: user.name, text: `/imagine ${request.prompt}` },
  });
}

async function drawAndSend(
  { services, user, responder, request, signal }: Drawing,
  {
    referenceImages,
    startedAt,
    what,
    showProgress,
    admission,
    endStep,
  }: {
    referenceImages: readonly string[];
    startedAt: number;
    what: string;
    showProgress: () => Promise<void>;
    admission: Extract<Admission, { isAdmitted: true }>;
    endStep: CommandStep['end'];
  },
): Promise<void> {
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
      ...(referenceImages.length > 0 ? { referenceImages } : {}),
      hold: admission.hold,
      signal,
    });
  } catch (error) {
    const failure = toGatewayError(error);
    services.logger.warn(
      { err: failure, kind: failure.kind, model: services.models.image },
      'image generation failed',
    );
    // Image requests are billed per image returned; none came back (the caller frees the hold).
    const reason = await services.spending.describeFailure({
      error: failure,
      conversationKey: request.conversationKey,
    });
    await endStep('error', reason);
    await responder.send({
      text: `⚠ ${reason}`,
      ...(request.isButtonPress ? { isPrivate: true } : {}),
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
  const drawnImages = await keepForVary({ services, images: result.images });
  const payload: ImagineActionPayload = {
    kind: 'imagine',
    conversationKey: request.conversationKey,
    prompt: request.prompt,
    count: request.count,
    ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}),
    outputFormat: request.outputFormat,
    // Inline data: URIs are never kept in a payload; only links and references to kept images.
    references: request.references.filter(
      (reference) => !('link' in reference && reference.link.startsWith('data:')),
    ),
    drawnImages,
    askerId: user.id,
  };
  const token = await services.actionStore.save(payload);
  const { actions, notice } = imageActions({ services, responder, token, drawnImages });
  const lines = [
    `**${request.prompt}**`,
    `_${user.name} · ${what} in ${seconds} s_`,
    ...[...result.notices, ...(notice ? [notice] : []), ...admission.notes].map((line) => `_${line}_`),
  ];
  await endStep('complete');
  const sent = await postDrawnImages({
    services,
    responder,
    result: { text: lines.join('\n'), files, actions },
  });
  if (sent !== 'not posted' && sent?.fileUrls && sent.fileUrls.length === result.images.length) {
    const postedLinks = sent.fileUrls;
    await services.actionStore.save(
      {
        ...payload,
        drawnImages: drawnImages.map((image, index) => ({ ...image, postedLink: postedLinks[index] })),
      },
      { token },
    );
  }
}

/**
 * Posts the drawn images. They are billed and never drawn again by themselves, so a passing platform
 * failure is tried again until they land; a post that cannot land says so where the progress line
 * was, rather than leave "drawing…" as the last word.
 */
async function postDrawnImages({
  services,
  responder,
  result,
}: {
  services: CommandServices;
  responder: CommandResponder;
  result: CommandResult;
}): Promise<Awaited<ReturnType<CommandResponder['send']>> | 'not posted'> {
  try {
    return await retryFinalCall({
      call: () => responder.send(result),
      classifyFailure: responder.surface.classifyFailure?.bind(responder.surface),
      onRetry: (error, delayMs) =>
        services.logger.warn({ err: error, delayMs }, 'posting the drawn images failed; trying again'),
    });
  } catch (error) {
    services.logger.error({ err: error }, 'could not post the drawn images');
    const what =
      result.files?.length === 1 ? 'the image but could not post it' : 'the images but could not post them';
    await responder.send({ text: `⚠ I drew ${what} here. Please try again.` });
    return 'not posted';
  }
}

/**
 * What Vary will need of each drawn image: the gateway's link when it gave one; otherwise the bytes,
 * kept (once, by hash) only where the image model takes `data:` URIs, since a link is all it takes.
 */
async function keepForVary({
  services,
  images,
}: {
  services: CommandServices;
  images: readonly GeneratedImage[];
}): Promise<DrawnImage[]> {
  const isKeepingBytes = acceptsImageWithoutLink(services);
  return Promise.all(
    images.map(async (image) => {
      if (image.sourceUrl) return { gatewayLink: image.sourceUrl };
      return isKeepingBytes ? { kept: await services.actionStore.images.keep(image) } : {};
    }),
  );
}

/**
 * Regenerate always; Vary for each image that will have something to vary from: a gateway link,
 * a public link once posted (Discord), or kept bytes. Where Vary cannot work, a note says why.
 */
function imageActions({
  services,
  responder,
  token,
  drawnImages,
}: {
  services: CommandServices;
  responder: CommandResponder;
  token: string;
  drawnImages: readonly DrawnImage[];
}): { actions: Action[]; notice: string | undefined } {
  const actions: Action[] = [
    { id: encodeActionId({ verb: 'imagine.regenerate', token }), label: 'Regenerate', style: 'secondary' },
  ];
  if (!services.gateway.capabilitiesOf(services.models.image).imageInput)
    return { actions, notice: undefined };
  const canVary = (image: DrawnImage) =>
    image.gatewayLink !== undefined || image.kept !== undefined || responder.hasPublicFileLinks === true;
  drawnImages.forEach((image, index) => {
    if (!canVary(image)) return;
    actions.push({
      id: encodeActionId({ verb: 'imagine.vary', token, index }),
      label: drawnImages.length === 1 ? 'Vary' : `Vary ${index + 1}`,
      style: 'primary',
    });
  });
  const notice = drawnImages.some((image) => !canVary(image))
    ? `No Vary button: the image model ${services.models.image} takes reference images only as links, and images posted here have none it could fetch.`
    : undefined;
  return { actions, notice };
}

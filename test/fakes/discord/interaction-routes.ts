import { requireChannel } from './channel-routes.ts';
import { findAutocompleteProblems } from './command-validation.ts';
import { DiscordApiError, errorCodes, invalidFormBody, unknownEntity } from './discord-api-error.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { interactionTypes } from './interaction-payloads.ts';
import type { FakeInteraction, InteractionResponse } from './interaction-store.ts';
import { createMessage, deleteMessage, editMessage, messageFlags, messageObject } from './message-actions.ts';
import { emptyMessageError, isEmptyMessage, parseMessageDraft } from './message-draft.ts';
import type { FakeMessage } from './message-store.ts';
import { findModalProblems } from './modal-rules.ts';
import { preciseNowMs } from './precise-time.ts';
import { jsonObject, type RequestBody } from './request-body.ts';
import { noContent, ok, type RestRoute } from './rest-route.ts';
import type { FakeChannel } from './world.ts';

/** Interaction callback types (Discord's numbers). */
const callbackTypes = {
  reply: 4,
  deferredReply: 5,
  deferredUpdate: 6,
  update: 7,
  autocompleteResult: 8,
  modal: 9,
} as const;

const webhookPattern = '/webhooks/:applicationId/:token';

/** Responding to interactions: the callback, then the interaction webhook for edits and follow-ups. */
export const interactionRoutes: RestRoute[] = [
  {
    name: 'interaction-callback',
    method: 'POST',
    pattern: '/interactions/:interactionId/:token/callback',
    auth: 'token',
    bucket: 'other',
    majorParameter: 'interactionId',
    handle(context, { params, query, body, receivedAtMs }) {
      const interaction = context.interactions.get(params.interactionId ?? '');
      if (interaction === undefined || interaction.token !== params.token) {
        throw unknownEntity('interaction', errorCodes.unknownInteraction);
      }
      // opcodes-and-status-codes.mdx, 40060 "Interaction has already been acknowledged".
      if (interaction.responses.length > 0) {
        throw new DiscordApiError({
          status: 400,
          code: errorCodes.interactionAlreadyAcknowledged,
          message: 'Interaction has already been acknowledged.',
        });
      }
      // After the deadline Discord has already shown "The application did not respond"
      // (receiving-and-responding.mdx: "you must send an initial response within 3 seconds").
      if (receivedAtMs - interaction.createdAtMs > context.settings.interactionResponseDeadlineMs) {
        throw unknownEntity('interaction', errorCodes.unknownInteraction);
      }
      const json = jsonObject(body);
      const type = Number(json.type);
      const data =
        typeof json.data === 'object' && json.data !== null
          ? (json.data as Record<string, unknown>)
          : undefined;
      const message = respond(context, interaction, type, { ...body, json: data });
      const response: InteractionResponse = { type, data, atMs: preciseNowMs() };
      interaction.responses.push(response);
      context.changes.emit({ type: 'interaction-response', interaction, response });
      if (query.get('with_response') !== 'true') {
        return noContent;
      }
      return ok(callbackResponse(context, interaction, type, message));
    },
  },
  {
    name: 'webhook-execute',
    method: 'POST',
    pattern: webhookPattern,
    auth: 'token',
    bucket: 'other',
    majorParameter: 'token',
    handle(context, { params, query, body }) {
      const interaction = requireWebhookInteraction(context, params);
      if (interaction.responses.length === 0) {
        throw unknownEntity('Webhook', errorCodes.unknownWebhook);
      }
      const channel = requireChannel(context, interaction.channelId);
      const draft = parseMessageDraft(context, { body, channel });
      if (isEmptyMessage(draft)) {
        throw emptyMessageError();
      }
      const loading = loadingOriginal(context, interaction);
      if (loading !== undefined) {
        // interactions/receiving-and-responding.mdx, "Create Followup Message": directly after a
        // DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE the follow-up edits the loading message instead of
        // creating one, and "the ephemeral flag will be ignored, and the value you provided in the
        // initial defer response will be preserved".
        const flags = loading.flags & messageFlags.ephemeral;
        const edited = editMessage(context, loading, { ...draft, flags });
        return query.get('wait') === 'true' ? ok(messageObject(context, edited)) : noContent;
      }
      const message = createMessage(context, {
        ...draft,
        channel,
        author: context.world.bot,
        type: messageTypeOf(interaction),
        interactionId: interaction.id,
        webhookId: context.applicationId,
        mentionDefaults: 'webhook',
      });
      interaction.followUpMessageIds.push(message.id);
      return query.get('wait') === 'true' ? ok(messageObject(context, message)) : noContent;
    },
  },
  {
    name: 'webhook-message-get',
    method: 'GET',
    pattern: `${webhookPattern}/messages/:messageId`,
    auth: 'token',
    bucket: 'other',
    majorParameter: 'token',
    handle(context, { params }) {
      const interaction = requireWebhookInteraction(context, params);
      return ok(messageObject(context, requireInteractionMessage(context, interaction, params.messageId)));
    },
  },
  {
    name: 'webhook-message-edit',
    method: 'PATCH',
    pattern: `${webhookPattern}/messages/:messageId`,
    auth: 'token',
    bucket: 'other',
    majorParameter: 'token',
    handle(context, { params, body }) {
      const interaction = requireWebhookInteraction(context, params);
      const message = requireInteractionMessage(context, interaction, params.messageId);
      const channel = requireChannel(context, message.channelId);
      const draft = parseMessageDraft(context, { body, channel, existing: message });
      // Editing a deferred reply replaces the "is thinking..." state with the answer. An existing
      // message's ephemeral state cannot be changed (receiving-and-responding.mdx, "Create Followup
      // Message"), so it comes from the message, whatever the edit asks.
      const flags =
        ((draft.flags ?? message.flags) & ~(messageFlags.loading | messageFlags.ephemeral)) |
        (message.flags & messageFlags.ephemeral);
      return ok(messageObject(context, editMessage(context, message, { ...draft, flags })));
    },
  },
  {
    name: 'webhook-message-delete',
    method: 'DELETE',
    pattern: `${webhookPattern}/messages/:messageId`,
    auth: 'token',
    bucket: 'other',
    majorParameter: 'token',
    handle(context, { params }) {
      const interaction = requireWebhookInteraction(context, params);
      deleteMessage(context, requireInteractionMessage(context, interaction, params.messageId));
      return noContent;
    },
  },
];

/**
 * The deferred reply while it still shows "is thinking...": the message a follow-up edits instead of
 * posting anew. Once edited or deleted, follow-ups are new messages again.
 */
function loadingOriginal(context: FakeDiscordContext, interaction: FakeInteraction): FakeMessage | undefined {
  if (
    interaction.responses[0]?.type !== callbackTypes.deferredReply ||
    interaction.originalMessageId === null
  ) {
    return undefined;
  }
  const original = context.messages.get(interaction.originalMessageId);
  return original !== undefined && (original.flags & messageFlags.loading) !== 0 ? original : undefined;
}

/**
 * The callback types each kind of interaction accepts (receiving-and-responding.mdx, "Interaction
 * Callback Type": 6 and 7 only for components, 8 only for autocomplete).
 */
const allowedCallbackTypes: Record<FakeInteraction['kind'], readonly number[]> = {
  'slash-command': [callbackTypes.reply, callbackTypes.deferredReply, callbackTypes.modal],
  'message-command': [callbackTypes.reply, callbackTypes.deferredReply, callbackTypes.modal],
  // "MODAL: Not available for MODAL_SUBMIT and PING interactions"; 6 and 7 only for a modal a
  // component opened, which edits that component's message.
  'modal-submit': [callbackTypes.reply, callbackTypes.deferredReply],
  component: [
    callbackTypes.reply,
    callbackTypes.deferredReply,
    callbackTypes.deferredUpdate,
    callbackTypes.update,
    callbackTypes.modal,
  ],
  autocomplete: [callbackTypes.autocompleteResult],
};

/** Carries out one callback; returns the message it created or updated, if any. */
function respond(
  context: FakeDiscordContext,
  interaction: FakeInteraction,
  type: number,
  body: RequestBody,
): FakeMessage | undefined {
  if (!allowedCallbackTypes[interaction.kind].includes(type)) {
    throw invalidFormBody([
      {
        path: ['type'],
        error: { code: 'INTERACTION_RESPONSE_TYPE_INVALID', message: 'Invalid interaction response type' },
      },
    ]);
  }
  if (type === callbackTypes.autocompleteResult) {
    const problems = findAutocompleteProblems(body.json as Record<string, unknown> | undefined);
    if (problems.length > 0) throw invalidFormBody(problems);
  }
  if (type === callbackTypes.modal) {
    const problems = findModalProblems(body.json as Record<string, unknown> | undefined);
    if (problems.length > 0) {
      throw invalidFormBody(
        problems.map((message) => ({ path: ['data'], error: { code: 'MODAL_INVALID', message } })),
      );
    }
  }
  const channel = requireChannel(context, interaction.channelId);
  switch (type) {
    case callbackTypes.reply:
    case callbackTypes.deferredReply: {
      const message = createOriginalMessage(context, interaction, channel, type, body);
      interaction.originalMessageId = message.id;
      return message;
    }
    case callbackTypes.deferredUpdate:
    case callbackTypes.update: {
      // interactions/receiving-and-responding.mdx, "Interaction Callback Type": 6 and 7 "edit the
      // original message", the one the component is on; so from here on `@original` is that message,
      // and DELETE …/@original deletes it (the trap of discord.js issue 10740).
      const source =
        interaction.sourceMessageId === null ? undefined : context.messages.get(interaction.sourceMessageId);
      interaction.originalMessageId = source?.id ?? null;
      if (type === callbackTypes.deferredUpdate || source === undefined) {
        return source;
      }
      return editMessage(context, source, parseMessageDraft(context, { body, channel, existing: source }));
    }
    default:
      // Autocomplete choices and modals only show on the person's screen; the response log keeps them.
      return undefined;
  }
}

/** The reply, or the deferred reply that shows "is thinking..." (the Loading flag) until edited. */
function createOriginalMessage(
  context: FakeDiscordContext,
  interaction: FakeInteraction,
  channel: FakeChannel,
  type: number,
  body: RequestBody,
): FakeMessage {
  const common = {
    channel,
    author: context.world.bot,
    type: messageTypeOf(interaction),
    interactionId: interaction.id,
    webhookId: context.applicationId,
    mentionDefaults: 'webhook' as const,
  };
  if (type === callbackTypes.deferredReply) {
    // receiving-and-responding.mdx, "Messages": with a deferred reply "the only valid message flag
    // you may use is EPHEMERAL"; the loading message keeps it for good.
    const requestedFlags = Number(jsonObject(body).flags ?? 0);
    return createMessage(context, {
      ...common,
      flags: messageFlags.loading | (requestedFlags & messageFlags.ephemeral),
    });
  }
  const draft = parseMessageDraft(context, { body, channel });
  if (isEmptyMessage(draft)) {
    throw emptyMessageError();
  }
  return createMessage(context, { ...draft, ...common });
}

function callbackResponse(
  context: FakeDiscordContext,
  interaction: FakeInteraction,
  type: number,
  message: FakeMessage | undefined,
): Record<string, unknown> {
  return {
    interaction: {
      id: interaction.id,
      type: interactionTypes[interaction.kind],
      response_message_id: message?.id ?? null,
      response_message_loading: message === undefined ? null : (message.flags & messageFlags.loading) !== 0,
      response_message_ephemeral:
        message === undefined ? null : (message.flags & messageFlags.ephemeral) !== 0,
    },
    resource: { type, ...(message === undefined ? {} : { message: messageObject(context, message) }) },
  };
}

function requireWebhookInteraction(
  context: FakeDiscordContext,
  params: Record<string, string>,
): FakeInteraction {
  const interaction = context.interactions.byToken(params.token ?? '');
  if (interaction === undefined || params.applicationId !== context.applicationId) {
    throw unknownEntity('Webhook', errorCodes.unknownWebhook);
  }
  // receiving-and-responding.mdx: "Interaction tokens are valid for 15 minutes"; after that the
  // webhook routes refuse it (opcodes-and-status-codes.mdx, 50027 "Invalid webhook token provided").
  if (preciseNowMs() - interaction.createdAtMs > context.settings.interactionTokenLifetimeMs) {
    throw new DiscordApiError({ status: 401, code: 50027, message: 'Invalid Webhook Token' });
  }
  return interaction;
}

/** `@original` or the id of one of the interaction's follow-ups. */
function requireInteractionMessage(
  context: FakeDiscordContext,
  interaction: FakeInteraction,
  messageId: string | undefined,
): FakeMessage {
  const id = messageId === '@original' ? interaction.originalMessageId : messageId;
  const belongs =
    id !== null &&
    id !== undefined &&
    (id === interaction.originalMessageId || interaction.followUpMessageIds.includes(id));
  const message = belongs ? context.messages.get(id) : undefined;
  if (message === undefined) {
    throw unknownEntity('Message', errorCodes.unknownMessage);
  }
  return message;
}

/** resources/message.mdx, "Message Types": 20 CHAT_INPUT_COMMAND, 23 CONTEXT_MENU_COMMAND, else 0 DEFAULT. */
function messageTypeOf(interaction: FakeInteraction): number {
  if (interaction.kind === 'slash-command') return 20;
  return interaction.kind === 'message-command' ? 23 : 0;
}

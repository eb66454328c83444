import { type EventOrigin, eventEnvelope, type SlackEvent } from './event-payloads.ts';
import type { FakeSlackState } from './fake-slack-state.ts';
import type { HttpDelivery, HttpTarget } from './http-delivery.ts';
import { postSignedRequest } from './http-delivery.ts';
import type { InteractionPayload, SlashCommandPayload } from './interaction-payloads.ts';
import { toSlackMessage } from './message-store.ts';
import type { SocketDelivery, SocketModeServer, SocketTarget } from './socket-mode-server.ts';

/** Where to deliver: the app's HTTP endpoint (default) or its Socket Mode connection. */
export type DeliveryTarget = HttpTarget | SocketTarget;

/**
 * A delivery method: over Socket Mode with `mode: 'socket'` (resolving with the ack), else over HTTP
 * (resolving with the app's answer).
 */
export interface Deliver<Content> {
  (options: Content & SocketTarget): Promise<SocketDelivery>;
  (options: Content & HttpTarget): Promise<HttpDelivery>;
}

/** Delivers events, commands and actions to the app, as Slack would. */
export interface AppDelivery {
  /**
   * Delivers an Events API event. A `message` or `app_mention` is also stored in its channel (if not
   * there yet), as Slack has the message before it tells the app.
   */
  deliverEvent: Deliver<{ event: SlackEvent; eventId?: string; origin?: EventOrigin }>;
  /** Delivers a slash command, with a `response_url` on the fake. */
  deliverSlashCommand: Deliver<{ command: SlashCommandPayload }>;
  /** Delivers an interactivity payload (button click, shortcut), with a `response_url` on the fake. */
  deliverInteraction: Deliver<{ payload: InteractionPayload }>;
}

/** Creates the delivery side of the fake. */
export function createAppDelivery(options: {
  state: FakeSlackState;
  socketServer: SocketModeServer;
  signingSecret: string;
  appUrl: () => string | undefined;
}): AppDelivery {
  const { state, socketServer } = options;

  function httpUrlOf(target: HttpTarget): string {
    const url = target.url ?? options.appUrl();
    if (url === undefined) {
      throw new Error('fake slack: no app URL; pass `url` or set `fake.appUrl`');
    }
    return url;
  }

  async function deliver(
    target: DeliveryTarget,
    socket: {
      type: 'events_api' | 'slash_commands' | 'interactive';
      payload: unknown;
      acceptsResponsePayload: boolean;
    },
    http: { contentType: string; body: string },
  ): Promise<SocketDelivery | HttpDelivery> {
    if (target.mode === 'socket') {
      return socketServer.send({ ...socket, target });
    }
    return postSignedRequest({
      target,
      url: httpUrlOf(target),
      signingSecret: target.signingSecret ?? options.signingSecret,
      ...http,
    });
  }

  return {
    deliverEvent: ((
      delivery: { event: SlackEvent; eventId?: string; origin?: EventOrigin } & DeliveryTarget,
    ) => {
      const { event, eventId, origin } = delivery;
      storeEventMessage(state, event);
      const envelope = eventEnvelope({
        event,
        eventId,
        workspace: state.workspace,
        ...(origin ? { origin } : {}),
      });
      return deliver(
        delivery,
        { type: 'events_api', payload: envelope, acceptsResponsePayload: false },
        { contentType: 'application/json', body: JSON.stringify(envelope) },
      );
    }) as AppDelivery['deliverEvent'],
    deliverSlashCommand: ((delivery: { command: SlashCommandPayload } & DeliveryTarget) => {
      const { command } = delivery;
      state.issuedTriggers.set(command.trigger_id ?? '', Date.now());
      const filled: SlashCommandPayload = {
        ...command,
        // A command from another workspace of an app installed in many names its own team.
        team_id: command.team_id || state.workspace.teamId,
        api_app_id: state.workspace.appId,
        response_url:
          command.response_url ||
          state.responseUrls.create({
            kind: 'commands',
            channel: command.channel_id ?? '',
            user: command.user_id ?? '',
          }),
      };
      return deliver(
        delivery,
        { type: 'slash_commands', payload: filled, acceptsResponsePayload: true },
        { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(filled).toString() },
      );
    }) as AppDelivery['deliverSlashCommand'],
    deliverInteraction: ((delivery: { payload: InteractionPayload } & DeliveryTarget) => {
      const { payload } = delivery;
      if (typeof payload.trigger_id === 'string') state.issuedTriggers.set(payload.trigger_id, Date.now());
      const filled = fillInteraction(state, payload);
      return deliver(
        delivery,
        { type: 'interactive', payload: filled, acceptsResponsePayload: payload.type === 'view_submission' },
        {
          contentType: 'application/x-www-form-urlencoded',
          body: new URLSearchParams({ payload: JSON.stringify(filled) }).toString(),
        },
      );
    }) as AppDelivery['deliverInteraction'],
  };
}

function storeEventMessage(state: FakeSlackState, event: SlackEvent): void {
  const isMessage =
    event.type === 'app_mention' ||
    (event.type === 'message' && event.subtype !== 'message_changed' && event.subtype !== 'message_deleted');
  const { channel, ts } = event;
  if (
    !isMessage ||
    typeof channel !== 'string' ||
    typeof ts !== 'string' ||
    state.messages.find(channel, ts)
  ) {
    return;
  }
  state.messages.add({
    channel,
    ts,
    threadTs: typeof event.thread_ts === 'string' ? event.thread_ts : undefined,
    user: typeof event.user === 'string' ? event.user : undefined,
    botId: typeof event.bot_id === 'string' ? event.bot_id : undefined,
    text: typeof event.text === 'string' ? event.text : '',
    files: Array.isArray(event.files) ? event.files : undefined,
  });
  state.notifyChange();
}

function fillInteraction(state: FakeSlackState, payload: InteractionPayload): InteractionPayload {
  const container = (payload.container ?? {}) as Record<string, unknown>;
  const channel = String(container.channel_id ?? (payload.channel as { id?: unknown } | undefined)?.id ?? '');
  const messageTs = String(container.message_ts ?? payload.message_ts ?? '');
  const stored = state.messages.find(channel, messageTs);
  const filled: InteractionPayload = {
    ...payload,
    api_app_id: state.workspace.appId,
    team: { id: state.workspace.teamId, domain: state.workspace.domain },
  };
  if (stored !== undefined && 'message' in payload) {
    filled.message = toSlackMessage(stored, { teamId: state.workspace.teamId, appId: state.workspace.appId });
  }
  if (payload.response_url === '' || payload.response_url === undefined) {
    filled.response_url = state.responseUrls.create({
      kind: 'actions',
      channel,
      user: String((payload.user as { id?: unknown } | undefined)?.id ?? ''),
      messageTs: messageTs === '' ? undefined : messageTs,
      threadTs:
        stored?.threadTs ?? (typeof container.thread_ts === 'string' ? container.thread_ts : undefined),
    });
  }
  return filled;
}

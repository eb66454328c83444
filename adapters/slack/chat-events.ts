import type { App, Context, webApi } from '@slack/bolt';
import { replyWithActions } from '../../commands/chat-reply.ts';
import { conversationKeyOf, placeOfConversation } from '../../src/conversation/turn.ts';
import { dedupeTtlMs, type SlackAdapterContext } from './adapter-context.ts';
import { setAgentSessionStatus } from './agent-sessions.ts';
import { withFeedbackButtons } from './feedback-surface.ts';
import { buildTurnFromEvent, type SlackMessageEvent, sentAtMicrosOf } from './message-turn.ts';
import { withPrivateNotice } from './private-notice.ts';
import type { ReplyPlace } from './reply-place.ts';
import { type ReplySessionStart, startReplySession } from './reply-session-start.ts';
import { createReplySurface } from './reply-surface.ts';
import { slackActorOf } from './slack-actor.ts';
import { runThreadTextCommand, threadTextCommandOf } from './thread-text-commands.ts';
import { titleThreadAfterFirstExchange } from './thread-title.ts';

/** Message subtypes that are something a person said; edits, deletions, joins and the like are not. */
const spokenSubtypes = new Set([undefined, 'file_share', 'thread_broadcast', 'me_message', 'bot_message']);

/** Why an event is answered, which decides where the reply goes. */
type Trigger = 'mention' | 'direct-message' | 'thread-reply';

/**
 * Chat: a mention in a channel is answered in a thread under it (that thread is the conversation),
 * later messages in a thread the bot takes part in are answered without a mention, and every DM is
 * answered. Each event is answered once, however often Slack delivers it and whether it arrives as
 * `app_mention`, `message` or both.
 */
export function registerChatEvents({ app, adapter }: { app: App; adapter: SlackAdapterContext }): void {
  app.event('app_mention', async ({ event, body, context, client }) => {
    await handleEvent({
      adapter,
      event: event as SlackMessageEvent,
      eventId: body.event_id,
      context,
      client,
    });
  });
  app.event('message', async ({ event, body, context, client }) => {
    await handleEvent({
      adapter,
      event: event as SlackMessageEvent,
      eventId: body.event_id,
      context,
      client,
    });
  });
}

async function handleEvent({
  adapter,
  event,
  eventId,
  context,
  client,
}: {
  adapter: SlackAdapterContext;
  event: SlackMessageEvent;
  eventId: string;
  context: Context;
  client: webApi.WebClient;
}): Promise<void> {
  // The message takes its place in its conversation as it arrives (its `ts` is Slack's order): what
  // follows may take one message longer than the next, and must not change the order of the answers.
  const sentAtMicros = sentAtMicrosOf(event.ts);
  const place =
    sentAtMicros === undefined
      ? undefined
      : adapter.services.engine.reservePlace(
          conversationKeyOf({
            platform: 'slack',
            workspace: context.teamId ?? 'unknown-team',
            channel: event.channel,
            // A DM or a thread is the conversation; a top-level mention starts a thread at itself.
            thread: event.thread_ts ?? (event.channel_type === 'im' ? undefined : event.ts),
          }),
          sentAtMicros,
        );
  try {
    await answerEvent({ adapter, event, eventId, context, client, givePlaceUp: () => place?.release() });
  } finally {
    place?.release();
  }
}

async function answerEvent({
  adapter,
  event,
  eventId,
  context,
  client,
  givePlaceUp,
}: {
  adapter: SlackAdapterContext;
  event: SlackMessageEvent;
  eventId: string;
  context: Context;
  client: webApi.WebClient;
  /** The message is a command, which takes its turn as it runs: its place frees now. */
  givePlaceUp: () => void;
}): Promise<void> {
  const { deduper, logger } = adapter;
  if (!(await deduper.isFirstSighting(`event:${eventId}`, dedupeTtlMs))) {
    logger.debug({ eventId }, 'slack: ignoring a redelivered event');
    return;
  }
  if (isIgnored({ adapter, event, context })) return;
  const teamId = context.teamId ?? 'unknown-team';
  const trigger = await triggerOf({ adapter, event, context, teamId });
  if (trigger === undefined) return;
  // The same message arrives as `message` and `app_mention` when the bot is mentioned in a thread.
  if (!(await deduper.isFirstSighting(`message:${event.channel}:${event.ts}`, dedupeTtlMs))) return;

  const threadTs = trigger === 'mention' ? (event.thread_ts ?? event.ts) : event.thread_ts;
  const place: ReplyPlace = {
    client,
    teamId,
    channel: event.channel,
    threadTs,
    recipientUserId: event.user,
    // app_mention events carry no channel_type; a DM's id says it is one.
    channelType: event.channel_type ?? (event.channel.startsWith('D') ? 'im' : undefined),
  };
  const conversationKey = conversationKeyOf({
    platform: 'slack',
    workspace: teamId,
    channel: event.channel,
    thread: threadTs,
  });
  try {
    // `@parley summarize`, `@parley reset` …: the commands slash commands cannot run in a thread.
    if (
      trigger !== 'thread-reply' &&
      threadTextCommandOf(event.text ?? '', context.botUserId) !== undefined
    ) {
      givePlaceUp();
    }
    if (
      trigger !== 'thread-reply' &&
      (await runThreadTextCommand({ adapter, event, place, conversationKey, client, context }))
    ) {
      return;
    }
    // The gate answers on who asks and where: the author's own directory entry (admin, groups) is
    // all it needs. The people the message names are looked up only for someone it lets in.
    const authorId = event.user ?? event.bot_id ?? 'unknown';
    // The turn's one reading of the place's settings (issue 39), beside the directory's look-up
    // (a Web API call when the person is not known yet), which does not depend on it. Unreadable
    // (the store), the reply asks for itself and says so.
    const placeSettingsReading = adapter.services.places
      .settingsAt(placeOfConversation(conversationKey))
      .catch(() => undefined);
    const person = await adapter.directory.lookUp({ client, userId: authorId });
    const actor = slackActorOf({
      person: { ...person, name: event.user === undefined ? authorId : person.name },
      userGroups: adapter.userGroups,
      client,
      teamId,
      channel: { id: event.channel, type: event.channel_type },
    });
    const placeSettings = await placeSettingsReading;
    const turn = {
      facts: { actor, conversationKey, ...(placeSettings ? { placeSettings } : {}) },
      read: async () => ({
        ...(await buildTurnFromEvent({
          event,
          conversationKey,
          client,
          botUserId: context.botUserId,
          botToken: adapter.botTokenFor(client),
          maxImageBytes: adapter.maxImageBytes,
          maxDocumentBytes: adapter.services.maxDocumentBytes,
          directory: adapter.directory,
        })),
        actor,
      }),
    };
    const replySurface = createReplySurface({ place, context: adapter.delivery });
    const surface = withFeedbackButtons(withPrivateNotice(replySurface, place, adapter.delivery));
    // Slack's own stop control names the thread (native-stop.ts).
    const stop =
      threadTs === undefined ? undefined : adapter.threadStops.track({ channel: event.channel, threadTs });
    // An agent session goes to processing as the reply starts, for its status and stop button,
    // without holding the reply for the round trip; it is active again once the reply has ended.
    let session: ReplySessionStart | undefined;
    try {
      const outcome = await replyWithActions({
        services: adapter.services,
        turn,
        surface,
        beforeReply: async () => {
          session = startReplySession({
            place,
            context: adapter.delivery,
            hasPosted: replySurface.hasPosted,
          });
        },
        ...(stop === undefined ? {} : { signal: stop.signal }),
      });
      await titleThreadAfterFirstExchange({
        adapter,
        place,
        conversationKey,
        outcome,
        requester: actor,
      });
    } finally {
      stop?.release();
      session?.stopWaiting();
      if ((await session?.started) === 'set') {
        await setAgentSessionStatus({ place, context: adapter.delivery, status: 'active' });
      }
    }
  } catch (error) {
    logger.error({ err: error, conversationKey, trigger }, 'slack: could not answer a message');
  }
}

function isIgnored({
  adapter,
  event,
  context,
}: {
  adapter: SlackAdapterContext;
  event: SlackMessageEvent;
  context: Context;
}): boolean {
  if (!spokenSubtypes.has(event.subtype)) return true;
  const isOwn =
    (event.user !== undefined && event.user === context.botUserId) ||
    (event.bot_id !== undefined && event.bot_id === context.botId);
  if (isOwn) return true;
  const isFromBot = event.bot_id !== undefined || event.subtype === 'bot_message';
  return isFromBot && !adapter.isReplyingToBots;
}

async function triggerOf({
  adapter,
  event,
  context,
  teamId,
}: {
  adapter: SlackAdapterContext;
  event: SlackMessageEvent;
  context: Context;
  teamId: string;
}): Promise<Trigger | undefined> {
  if (event.type === 'app_mention') return 'mention';
  if (event.channel_type === 'im') return 'direct-message';
  const isThreadReply = event.thread_ts !== undefined && event.thread_ts !== event.ts;
  // A mention is answered through its app_mention event, which Slack always sends as well.
  const mentionsBot =
    context.botUserId !== undefined && (event.text ?? '').includes(`<@${context.botUserId}`);
  if (mentionsBot) return undefined;
  if (!isThreadReply) {
    // A channel /config set to answer every message: each top-level message gets a thread.
    const place = placeOfConversation(
      conversationKeyOf({ platform: 'slack', workspace: teamId, channel: event.channel }),
    );
    const settings = await adapter.services.places.settingsAt(place).catch(() => undefined);
    return settings?.replyMode === 'all' ? 'mention' : undefined;
  }
  // The bot takes part in a thread once it has answered there: the thread then has a history.
  const conversationKey = conversationKeyOf({
    platform: 'slack',
    workspace: teamId,
    channel: event.channel,
    thread: event.thread_ts,
  });
  const history = await adapter.services.history.load(conversationKey).catch(() => []);
  return history.length > 0 ? 'thread-reply' : undefined;
}

import type { SlackFile } from './file-store.ts';
import { nextMessageTs, randomEnvelopeId, randomSlackId, unixSeconds } from './slack-ids.ts';
import { defaultWorkspace, type Workspace } from './workspace.ts';

/** An Events API event: the inner `event` of an envelope. */
export type SlackEvent = Record<string, unknown> & { type: string };

/** What every message-like event needs; the rest has realistic defaults. */
export interface MessageEventOptions {
  channel: string;
  /** The author. Default `U0PERSON01`. */
  user?: string;
  text: string;
  /** Default: a new, increasing timestamp. */
  ts?: string;
  /** The parent's ts for a message in a thread. */
  threadTs?: string;
  /** Files shared with the message, e.g. from `fake.addFile(...)`. */
  files?: SlackFile[];
  /** Default the fake's default team. */
  teamId?: string;
}

/** The person payload helpers use when a test names none. */
export const defaultPersonId = 'U0PERSON01';

function messageFields(options: MessageEventOptions): SlackEvent {
  const ts = options.ts ?? nextMessageTs();
  const event: SlackEvent = {
    type: 'message',
    user: options.user ?? defaultPersonId,
    text: options.text,
    ts,
    event_ts: ts,
    channel: options.channel,
    team: options.teamId ?? defaultWorkspace.teamId,
    client_msg_id: randomEnvelopeId(),
    blocks: [
      {
        type: 'rich_text',
        block_id: randomSlackId('', 5).toLowerCase(),
        elements: [{ type: 'rich_text_section', elements: richTextElementsOf(options.text) }],
      },
    ],
  };
  if (options.threadTs !== undefined) {
    event.thread_ts = options.threadTs;
  }
  if (options.files !== undefined && options.files.length > 0) {
    event.files = options.files;
    event.upload = false;
    event.display_as_bot = false;
  }
  return event;
}

/**
 * An `app_mention`: someone wrote `<@bot> …` in a channel. The mention is put in front of `text`
 * unless `text` already has it.
 */
export function appMention(options: MessageEventOptions & { botUserId?: string }): SlackEvent {
  const mention = `<@${options.botUserId ?? defaultWorkspace.botUserId}>`;
  const text = options.text.includes(mention) ? options.text : `${mention} ${options.text}`;
  return { ...messageFields({ ...options, text }), type: 'app_mention' };
}

/** A `message` in a DM with the bot (`channel_type: 'im'`; DM channel ids start with `D`). */
export function directMessage(options: MessageEventOptions): SlackEvent {
  return withFileShare({ ...messageFields(options), channel_type: 'im' });
}

/** A `message` in a thread of a channel, without a mention. */
export function threadReply(
  options: MessageEventOptions & { threadTs: string; parentUserId?: string },
): SlackEvent {
  const event: SlackEvent = { ...messageFields(options), channel_type: 'channel' };
  if (options.parentUserId !== undefined) {
    event.parent_user_id = options.parentUserId;
  }
  return withFileShare(event);
}

/** A top-level `message` in a channel, without a mention. */
export function channelMessage(options: MessageEventOptions): SlackEvent {
  return withFileShare({ ...messageFields(options), channel_type: 'channel' });
}

/**
 * A message's text as the elements of its `rich_text` block: Slack gives a mention its own `user`
 * element and the words around it `text` elements (docs.slack.dev/reference/block-kit/block-elements/user-element;
 * a real `app_mention` payload, `<@U066C7XNE6M> hey`, in slackapi/bolt-js pull 2057). A client such
 * as the Chat SDK reads the mention from the blocks, not from `text`.
 */
function richTextElementsOf(text: string): Array<{ type: string; text?: string; user_id?: string }> {
  return text
    .split(/(<@[UW][A-Z0-9]+>)/)
    .filter((part) => part !== '')
    .map((part) => {
      const mentioned = /^<@([UW][A-Z0-9]+)>$/.exec(part)?.[1];
      return mentioned === undefined ? { type: 'text', text: part } : { type: 'user', user_id: mentioned };
    });
}

/**
 * A `message` another app posted (`bot_id` set, `subtype: 'bot_message'`). Use the fake's own
 * `botId`/`botUserId` for the echo Slack sends of the bot's own messages.
 */
export function botMessage(
  options: Omit<MessageEventOptions, 'user' | 'files'> & { botId: string; user?: string },
): SlackEvent {
  const { user: _person, ...fields } = messageFields(options);
  return {
    ...fields,
    ...(options.user === undefined ? {} : { user: options.user }),
    subtype: 'bot_message',
    bot_id: options.botId,
    channel_type: options.channel.startsWith('D') ? 'im' : 'channel',
  };
}

// A message with files has the subtype `file_share`; an app_mention never has a subtype.
function withFileShare(event: SlackEvent): SlackEvent {
  return event.files === undefined ? event : { ...event, subtype: 'file_share' };
}

/** The legacy verification token Slack still puts in payloads; Bolt ignores it. */
export const verificationToken = 'fake-verification-token';

/**
 * Where an event happened, for an app installed in many workspaces: the workspace (`team_id`), its
 * Enterprise Grid org, and whether the app's installation there is org-wide. The envelope's
 * `authorizations` names the installation the event is for; for an org-wide install its `team_id` is
 * null and `is_enterprise_install` true (docs.slack.dev/apis/events-api "authorizations").
 */
export interface EventOrigin {
  teamId: string;
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
  /** The app's bot user of that installation. */
  botUserId: string;
}

/** Wraps an event in the Events API envelope (`type: 'event_callback'`). */
export function eventEnvelope(options: {
  event: SlackEvent;
  eventId?: string;
  workspace?: Workspace;
  origin?: EventOrigin;
}): Record<string, unknown> {
  const workspace = options.workspace ?? defaultWorkspace;
  const origin: EventOrigin = options.origin ?? { teamId: workspace.teamId, botUserId: workspace.botUserId };
  const enterpriseId = origin.enterpriseId ?? null;
  const isEnterpriseInstall = origin.isEnterpriseInstall === true;
  return {
    token: verificationToken,
    team_id: origin.teamId,
    ...(enterpriseId === null ? {} : { enterprise_id: enterpriseId }),
    context_team_id: origin.teamId,
    context_enterprise_id: enterpriseId,
    api_app_id: workspace.appId,
    event: options.event,
    type: 'event_callback',
    event_id: options.eventId ?? randomSlackId('Ev'),
    event_time: unixSeconds(),
    authorizations: [
      {
        enterprise_id: enterpriseId,
        team_id: isEnterpriseInstall ? null : origin.teamId,
        user_id: origin.botUserId,
        is_bot: true,
        is_enterprise_install: isEnterpriseInstall,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(randomEnvelopeId()).toString('base64url')}`,
  };
}

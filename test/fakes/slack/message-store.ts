import type { SlackFile } from './file-store.ts';

/** One message as the fake keeps it. Tests read these; the Web API answers with `toSlackMessage`. */
export interface StoredMessage {
  channel: string;
  ts: string;
  /** The parent's `ts` for a reply in a thread; `undefined` for a top-level message. */
  threadTs: string | undefined;
  /** The author: a person's id, or the bot user's id for the bot's messages. */
  user: string | undefined;
  /** Set on messages an app posted. */
  botId: string | undefined;
  text: string;
  blocks: unknown[] | undefined;
  files: SlackFile[] | undefined;
  metadata: unknown;
  /** `chat.update` calls that changed this message. */
  editCount: number;
  /** `in_progress` while a native stream writes it, `completed` once stopped; `undefined` otherwise. */
  streamingState: 'in_progress' | 'completed' | undefined;
  /** `Date.now()` when it was posted and last changed. */
  postedAtMs: number;
  updatedAtMs: number;
}

/** What is needed to add a message; the rest is filled in. */
export type NewMessage = Pick<StoredMessage, 'channel' | 'ts' | 'text'> & Partial<StoredMessage>;

/** Every message of every channel, in `ts` order. */
export interface MessageStore {
  add(message: NewMessage): StoredMessage;
  find(channel: string, ts: string): StoredMessage | undefined;
  remove(channel: string, ts: string): boolean;
  /** All messages of a channel, thread replies included, oldest first. */
  inChannel(channel: string): StoredMessage[];
  /** The replies in a thread (not its parent), oldest first. */
  replies(channel: string, threadTs: string): StoredMessage[];
  channels(): string[];
  clear(): void;
}

/** Creates an empty store. */
export function createMessageStore(): MessageStore {
  const byChannel = new Map<string, StoredMessage[]>();

  return {
    add(message) {
      const now = Date.now();
      const stored: StoredMessage = {
        threadTs: undefined,
        user: undefined,
        botId: undefined,
        blocks: undefined,
        files: undefined,
        metadata: undefined,
        editCount: 0,
        streamingState: undefined,
        postedAtMs: now,
        updatedAtMs: now,
        ...message,
      };
      const list = byChannel.get(message.channel) ?? [];
      byChannel.set(message.channel, list);
      // Messages usually arrive in ts order; a test may add an older one, which goes in its place.
      let index = list.length;
      while (index > 0 && compareTs(list[index - 1]?.ts ?? '', stored.ts) > 0) {
        index -= 1;
      }
      list.splice(index, 0, stored);
      return stored;
    },
    find(channel, ts) {
      return byChannel.get(channel)?.find((message) => message.ts === ts);
    },
    remove(channel, ts) {
      const list = byChannel.get(channel);
      const index = list?.findIndex((message) => message.ts === ts) ?? -1;
      if (list === undefined || index === -1) {
        return false;
      }
      list.splice(index, 1);
      return true;
    },
    inChannel(channel) {
      return [...(byChannel.get(channel) ?? [])];
    },
    replies(channel, threadTs) {
      return (byChannel.get(channel) ?? []).filter(
        (message) => message.threadTs === threadTs && message.ts !== threadTs,
      );
    },
    channels() {
      return [...byChannel.keys()];
    },
    clear() {
      byChannel.clear();
    },
  };
}

/** Orders two Slack timestamps numerically (their string order breaks when the seconds grow a digit). */
export function compareTs(left: string, right: string): number {
  const [leftSeconds = '0', leftMicros = '0'] = left.split('.');
  const [rightSeconds = '0', rightMicros = '0'] = right.split('.');
  return Number(leftSeconds) - Number(rightSeconds) || Number(leftMicros) - Number(rightMicros);
}

/** The message as Slack's Web API shows it, with thread fields on a parent that has replies. */
export function toSlackMessage(
  message: StoredMessage,
  context: { teamId: string; appId: string; replies?: StoredMessage[] },
): Record<string, unknown> {
  const slack: Record<string, unknown> = {
    type: 'message',
    ts: message.ts,
    text: message.text,
    team: context.teamId,
  };
  if (message.user !== undefined) slack.user = message.user;
  if (message.botId !== undefined) {
    slack.bot_id = message.botId;
    slack.app_id = context.appId;
  }
  if (message.threadTs !== undefined) slack.thread_ts = message.threadTs;
  if (message.blocks !== undefined) slack.blocks = message.blocks;
  if (message.files !== undefined) {
    slack.files = message.files;
    slack.upload = false;
  }
  if (message.metadata !== undefined) slack.metadata = message.metadata;
  if (message.editCount > 0) {
    slack.edited = { user: message.user, ts: `${Math.floor(message.updatedAtMs / 1000)}.000000` };
  }
  const replies = context.replies ?? [];
  if (replies.length > 0) {
    slack.thread_ts = message.ts;
    slack.reply_count = replies.length;
    slack.reply_users = [...new Set(replies.map((reply) => reply.user).filter(Boolean))];
    slack.reply_users_count = (slack.reply_users as unknown[]).length;
    slack.latest_reply = replies.at(-1)?.ts;
  }
  return slack;
}

import type { StoredMessage } from '../fakes/slack/index.ts';
import type { SlackUnderTest } from './slack-under-test.ts';

/** A button as the Slack adapter renders it in an `actions` block. */
export type Button = { action_id: string; text: { text: string } };

/** The text of a message's `markdown` block, the form chat replies take. */
export function markdownOf(message: StoredMessage | undefined): string | undefined {
  const block = message?.blocks?.[0] as { type?: string; text?: string } | undefined;
  return block?.type === 'markdown' ? block.text : undefined;
}

/** The buttons under a message. */
export function buttonsOf(message: StoredMessage | undefined): Button[] {
  const actions = (message?.blocks ?? []).find((block) => (block as { type?: string }).type === 'actions');
  return ((actions as { elements?: Button[] } | undefined)?.elements ?? []) as Button[];
}

/** The bot's messages in a thread. */
export function botReplies(bot: SlackUnderTest, channel: string, threadTs: string): StoredMessage[] {
  return bot.slack.messages(channel, threadTs).filter((message) => message.botId !== undefined);
}

/** Waits until the thread holds `count` bot messages and the last carries Regenerate: the reply is done. */
export function finishedReplies(bot: SlackUnderTest, channel: string, threadTs: string, count = 1) {
  return bot.slack.waitFor(() => {
    const messages = botReplies(bot, channel, threadTs);
    return messages.length >= count && buttonsOf(messages.at(-1))[0]?.text.text === 'Regenerate'
      ? messages
      : undefined;
  }, 10_000);
}

/** The text the model saw last: the user message of the newest chat request. */
export function lastUserContent(bot: SlackUnderTest): unknown {
  const chats = bot.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));
  const body = chats.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> } | undefined;
  return body?.messages.at(-1)?.content;
}

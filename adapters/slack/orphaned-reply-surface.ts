import type { webApi } from '@slack/bolt';
import { z } from 'zod';
import type { Action } from '../../src/delivery/card.ts';
import type { Surface } from '../../src/delivery/surface.ts';
import { classifySlackFailure } from './classify-failure.ts';
import { renderFallbackText, renderReplyBlocks } from './render-blocks.ts';
import { slackErrorCodeOf } from './slack-errors.ts';
import { slackLimits } from './slack-limits.ts';
import type { SlackOutbound } from './slack-outbound.ts';

/** Where a Slack reply's messages are, as its surface writes it into the journal. */
export const slackReplyAddressSchema = z.object({
  platform: z.literal('slack'),
  teamId: z.string(),
  channel: z.string(),
  threadTs: z.string().optional(),
});
export type SlackReplyAddress = z.infer<typeof slackReplyAddressSchema>;

/**
 * The messages of a reply whose process died, reached again by `ts`. A message may still be a native
 * stream (Slack ends an idle one by itself only after a while), so it is stopped first; after that
 * each message is one `markdown` block rewritten by `chat.update`, which needs the text again to
 * change the buttons under it. Its calls wait their turn in the bot's outbound queue like a live
 * reply's: after a restart many orphans may be finished at once, within the workspace's budget.
 */
export function createOrphanedReplySurface({
  client,
  outbound,
  address,
  messages,
}: {
  client: webApi.WebClient;
  outbound: SlackOutbound;
  address: SlackReplyAddress;
  messages: ReadonlyArray<{ readonly id: string; readonly text: string }>;
}): Surface {
  const texts = new Map(messages.map((message) => [message.id, message.text]));
  const actionsOf = new Map<string, readonly Action[]>();
  // Background work: live replies' first posts and final writes go before it.
  const inTurn = <Result>(method: string, run: () => Promise<Result>) =>
    outbound.schedule({
      priority: 'edit',
      target: { teamId: address.teamId, method, channel: address.channel },
      run,
    });
  // chat.stopStream is Tier 2: each message is stopped once, and the messages posted here never.
  const stopped = new Set<string>();
  const rewrite = async (ts: string) => {
    const text = texts.get(ts) ?? '';
    if (!stopped.has(ts)) {
      await inTurn('chat.stopStream', () => stopStreamIfOpen(client, address.channel, ts));
      stopped.add(ts);
    }
    await inTurn('chat.update', () =>
      client.chat.update({
        channel: address.channel,
        ts,
        text: renderFallbackText(text),
        blocks: renderReplyBlocks(text, actionsOf.get(ts) ?? []),
      }),
    );
  };
  return {
    limits: { maxMessageLength: slackLimits.replyMessageLength, minEditIntervalMs: 0 },
    address,
    classifyFailure: classifySlackFailure,
    async post(text, options) {
      const response = await inTurn('chat.postMessage', () =>
        client.chat.postMessage({
          channel: address.channel,
          ...(address.threadTs === undefined ? {} : { thread_ts: address.threadTs }),
          text: renderFallbackText(text),
          blocks: renderReplyBlocks(text, options?.actions ?? []),
        }),
      );
      if (typeof response.ts !== 'string') throw new Error('chat.postMessage answered without a ts');
      texts.set(response.ts, text);
      stopped.add(response.ts);
      return { id: response.ts };
    },
    // What the message shows now: the journal writes at most every few seconds, so the screen may be
    // ahead of it (commands/finish-orphaned-replies.ts). One read of that message: conversations.replies
    // takes "a message in the thread" as `ts`, and `oldest`/`latest` with `inclusive` narrow the page
    // to it (docs.slack.dev/reference/methods/conversations.replies); conversations.history for a
    // message outside a thread.
    async readText(message) {
      const range = { channel: address.channel, oldest: message.id, latest: message.id, inclusive: true };
      const page =
        address.threadTs === undefined
          ? await inTurn('conversations.history', () => client.conversations.history({ ...range, limit: 1 }))
          : await inTurn('conversations.replies', () =>
              client.conversations.replies({ ...range, ts: message.id, limit: 2 }),
            );
      const found = page.messages?.find((candidate) => candidate.ts === message.id);
      return found === undefined ? undefined : shownMarkdownOf(found);
    },
    async edit(message, text) {
      texts.set(message.id, text);
      await rewrite(message.id);
    },
    async setActions(message, actions) {
      actionsOf.set(message.id, actions);
      await rewrite(message.id);
    },
  };
}

/**
 * A reply message's Markdown: its `markdown` block, as parley writes every finished message, or,
 * for a message still streaming (no blocks yet), the text the stream wrote. A message with other
 * blocks says nothing usable here (its `text` is the mrkdwn fallback, not the Markdown).
 */
function shownMarkdownOf(message: { text?: string; blocks?: unknown[] }): string | undefined {
  const [first] = message.blocks ?? [];
  if (first === undefined) return message.text;
  const block = first as { type?: unknown; text?: unknown };
  return block.type === 'markdown' && typeof block.text === 'string' ? block.text : undefined;
}

async function stopStreamIfOpen(client: webApi.WebClient, channel: string, ts: string): Promise<void> {
  try {
    await client.chat.stopStream({ channel, ts });
  } catch (error) {
    // Not a stream, or one Slack already ended: the message is an ordinary one to update.
    const code = slackErrorCodeOf(error);
    if (code === undefined) throw error;
  }
}

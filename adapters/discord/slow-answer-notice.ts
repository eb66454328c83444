import type { SendableChannels } from 'discord.js';
import type { ReplyOutcome } from '../../src/conversation/engine.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';
import { noPings } from './channel-surface.ts';

/**
 * A streamed answer is edited into place, and an edit notifies nobody (observed: Discord's clients
 * notify for new messages and their mentions; resources/message.mdx, "Edit Message", only says the
 * mentions are reconstructed). So when an answer took longer than the owner's
 * NOTIFY_AFTER_S, the person who asked is told it is done, once: a short line under the answer that
 * pings them alone (`allowed_mentions.users` is only them), or, where the owner chose
 * `new-message` and the answer is in a thread, the answer posted again as fresh messages (which the
 * thread's members are notified of) in place of the edited ones.
 */
export async function tellAskerTheAnswerIsDone({
  adapter,
  channel,
  outcome,
  askerId,
  askedAtMs,
  isInThread,
  now = Date.now,
}: {
  adapter: DiscordAdapterContext;
  channel: SendableChannels;
  outcome: ReplyOutcome;
  askerId: string;
  /** When the question was sent (from its snowflake): waiting in the queue counts too. */
  askedAtMs: number;
  isInThread: boolean;
  now?: () => number;
}): Promise<'pinged' | 'posted-afresh' | 'not-needed'> {
  const { notifyAfterMs } = adapter;
  const messages = outcome.delivered.messages;
  if (notifyAfterMs <= 0 || outcome.status !== 'complete' || messages.length === 0) return 'not-needed';
  const tookMs = now() - askedAtMs;
  if (tookMs <= notifyAfterMs) return 'not-needed';
  try {
    if (adapter.discord.notifyWith === 'new-message' && isInThread) {
      await postAfresh({ adapter, channel, messageIds: messages.map((message) => message.id) });
      adapter.logger.info({ channelId: channel.id, tookMs }, 'slow answer posted afresh in its thread');
      return 'posted-afresh';
    }
    const first = messages[0];
    await adapter.outbound.schedule({
      priority: 'final-write',
      target: { kind: 'create', channelId: channel.id },
      run: async () => {
        await channel.send({
          content: `<@${askerId}> your answer is ready.`,
          allowedMentions: { parse: [], users: [askerId], repliedUser: false },
          ...(first ? { reply: { messageReference: first.id, failIfNotExists: false } } : {}),
        });
      },
    });
    adapter.logger.info({ channelId: channel.id, tookMs }, 'asker pinged: slow answer done');
    return 'pinged';
  } catch (error) {
    // The answer is there either way; only the nudge is lost.
    adapter.logger.warn({ err: error, channelId: channel.id }, 'could not tell the asker the answer is done');
    return 'not-needed';
  }
}

/** Posts each message of the answer again, in order, with its buttons, then removes the edited ones. */
async function postAfresh({
  adapter,
  channel,
  messageIds,
}: {
  adapter: DiscordAdapterContext;
  channel: SendableChannels;
  messageIds: readonly string[];
}): Promise<void> {
  for (const messageId of messageIds) {
    const old = await channel.messages.fetch(messageId);
    await adapter.outbound.schedule({
      priority: 'final-write',
      target: { kind: 'create', channelId: channel.id },
      run: async () => {
        await channel.send({
          content: old.content,
          components: old.components.map((component) => component.toJSON()),
          allowedMentions: noPings,
        });
      },
    });
  }
  for (const messageId of messageIds) {
    await adapter.outbound.schedule({
      priority: 'edit',
      target: { kind: 'edit', channelId: channel.id },
      staleSinceMs: 0,
      run: () => channel.messages.delete(messageId),
    });
  }
}

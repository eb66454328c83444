import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appMention, directMessage, type SlackEvent, threadReply } from '../fakes/slack/index.ts';
import { buttonsOf, finishedReplies, markdownOf } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

/** A message in a group DM (`channel_type: mpim`) that starts a thread the bot follows. */
function groupMention(channel: string, text: string, user: string): SlackEvent {
  return { ...appMention({ channel, text, user }), channel_type: 'mpim' };
}

/**
 * chat.startStream refusals with the error codes its page documents (docs.slack.dev/reference/
 * methods/chat.startStream, "Errors"): every one leaves the reply to chat.postMessage + chat.update,
 * and each is remembered as widely as it applies.
 */
describe('slack: native streaming refused', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      // Group DMs are served only when the owner says so (ACCESS_GROUP_DMS).
      environment: { ACCESS_GROUP_DMS: 'on' },
      slackOptions: { isMessagesTabEnabled: false, streamIdleTimeoutMs: 700 },
    });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it.each([
    'channel_type_not_supported',
    'messages_tab_disabled',
    'team_not_found',
    'user_not_found',
    'restricted_action',
    'internal_error',
  ])('answers with chat.postMessage and chat.update when startStream says %s', async (error) => {
    bot.slack.failNext({ method: 'chat.startStream', error });
    bot.gateway.enqueue({ text: 'Still here.' });
    // Each case has its own asker: a refusal for a recipient is remembered for them.
    const mention = appMention({ channel: `C0REFUSE${error.length}`, text: 'hello', user: `U0${error}` });

    await bot.deliverEvent(mention);
    const [reply] = await finishedReplies(bot, mention.channel as string, String(mention.ts));

    expect(markdownOf(reply)).toBe('Still here.');
    expect(bot.slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(bot.slack.streams).toEqual([]);
  });

  it('remembers channel_type_not_supported for that kind of channel only', async () => {
    bot.slack.failNext({ method: 'chat.startStream', error: 'channel_type_not_supported' });
    bot.gateway.setDefault({ text: 'Fine.' });

    for (const event of [
      groupMention('G0GROUPDM1', 'one', 'U0GROUPS01'),
      groupMention('G0GROUPDM2', 'two', 'U0GROUPS01'),
    ]) {
      await bot.deliverEvent(event);
      await finishedReplies(bot, event.channel as string, String(event.ts));
    }
    const channelMention = appMention({ channel: 'C0PUBLIC01', text: 'three', user: 'U0GROUPS01' });
    await bot.deliverEvent(channelMention);
    await bot.slack.waitFor(() => bot.slack.streams.find((stream) => stream.state === 'stopped'));

    expect(bot.slack.callsTo('chat.startStream').map((call) => call.arguments.channel)).toEqual([
      'G0GROUPDM1',
      'C0PUBLIC01',
    ]);
  });

  it('remembers messages_tab_disabled for DMs, and a restricted channel for that channel', async () => {
    bot.gateway.setDefault({ text: 'Fine.' });
    const dmThread = '1700000000.000100';
    for (const channel of ['D0NOTAB001', 'D0NOTAB002']) {
      bot.slack.addMessage({ channel, ts: dmThread, user: 'U0DMUSER01', text: 'start' });
      const event = directMessage({ channel, text: 'in a thread', threadTs: dmThread, user: 'U0DMUSER01' });
      await bot.deliverEvent(event);
      await finishedReplies(bot, channel, dmThread);
    }
    bot.slack.failNext({ method: 'chat.startStream', error: 'restricted_action_thread_only_channel' });
    for (const text of ['first', 'second']) {
      const event = appMention({ channel: 'C0THREADS1', text, user: 'U0DMUSER01' });
      await bot.deliverEvent(event);
      await finishedReplies(bot, 'C0THREADS1', String(event.ts));
    }
    const elsewhere = appMention({ channel: 'C0PUBLIC02', text: 'elsewhere', user: 'U0DMUSER01' });
    await bot.deliverEvent(elsewhere);
    await bot.slack.waitFor(() => bot.slack.streams.find((stream) => stream.state === 'stopped'));

    expect(bot.slack.callsTo('chat.startStream').map((call) => call.arguments.channel)).toEqual([
      'D0NOTAB001',
      'C0THREADS1',
      'C0PUBLIC02',
    ]);
  });

  it('tries again for the next person after user_not_found', async () => {
    bot.slack.failNext({ method: 'chat.startStream', error: 'user_not_found' });
    bot.gateway.setDefault({ text: 'Fine.' });
    const first = appMention({ channel: 'C0PEOPLE01', text: 'one', user: 'U0GUEST001' });
    await bot.deliverEvent(first);
    await finishedReplies(bot, 'C0PEOPLE01', String(first.ts));

    const second = appMention({ channel: 'C0PEOPLE01', text: 'two', user: 'U0MEMBER01' });
    await bot.deliverEvent(second);
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect(stream.recipientUserId).toBe('U0MEMBER01');
  });

  it('finishes a reply whose stream Slack ended while the model paused, Stop button and all', async () => {
    // Three pieces a second apart; Slack ends this fake's streams after 700 ms without a write.
    bot.gateway.enqueue({
      text: 'Part one. Part two. Part end.',
      chunkSize: 10,
      delayBetweenChunksMs: 1_000,
    });
    const mention = appMention({ channel: 'C0IDLEEND1', text: 'think hard', user: 'U0IDLEUSER' });

    await bot.deliverEvent(mention);
    const [reply] = await finishedReplies(bot, 'C0IDLEEND1', String(mention.ts));

    expect(markdownOf(reply)).toBe('Part one. Part two. Part end.');
    expect(bot.slack.streams[0]).toMatchObject({ state: 'stopped', text: 'Part one. ' });
    // While the rest was written with chat.update, the message carried the Stop button again.
    const inBetween = bot.slack.callsTo('chat.update')[0]?.arguments.blocks as unknown[] | undefined;
    expect(buttonsOf({ blocks: inBetween } as never).map((button) => button.text.text)).toEqual(['Stop']);
  });

  it('follows the thread it answered after a refusal', async () => {
    bot.slack.failNext({ method: 'chat.startStream', error: 'internal_error' });
    bot.gateway.setDefault({ text: 'Fine.' });
    const mention = appMention({ channel: 'C0FOLLOW01', text: 'one', user: 'U0FOLLOW01' });
    await bot.deliverEvent(mention);
    const [first] = await finishedReplies(bot, 'C0FOLLOW01', String(mention.ts));

    await bot.deliverEvent(
      threadReply({ channel: 'C0FOLLOW01', threadTs: String(mention.ts), text: 'two', user: 'U0FOLLOW01' }),
    );
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    // A passing failure is not remembered: the next reply streams natively again.
    expect(markdownOf(first)).toBe('Fine.');
    expect(stream.text).toBe('Fine.');
  });
});

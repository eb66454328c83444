import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  appMention,
  buttonClick,
  directMessage,
  type SocketDelivery,
  slashCommand,
} from '../fakes/slack/index.ts';
import { buttonsOf } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

describe('slack over Socket Mode, in a workspace without native streaming (unknown_method)', () => {
  let bot: SlackUnderTest;
  const finishedReply = (channel: string, threadTs?: string) =>
    bot.slack.waitFor(() =>
      bot.slack
        .messages(channel, threadTs)
        .find((message) => message.botId !== undefined && buttonsOf(message)[0]?.text.text === 'Regenerate'),
    );

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'socket', slackOptions: { nativeStreaming: 'unknown_method' } });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('connects with the app token and answers a mention in its thread with the exact text', async () => {
    const reply = '# Plan\n\n1. **Pack**\n2. Go';
    bot.gateway.enqueue({ text: reply, chunkSize: 4, delayBetweenChunksMs: 30 });
    const mention = appMention({ channel: 'C0SOCKET01', text: 'plan a trip' });

    const delivery = (await bot.deliverEvent(mention)) as SocketDelivery;
    const message = await finishedReply('C0SOCKET01', String(mention.ts));

    expect(delivery.ack).toMatchObject({ type: 'events_api' });
    expect(delivery.ack.ackDelayMs).toBeLessThan(3_000);
    expect(bot.adapter.port).toBeUndefined();
    expect(bot.slack.openSocketCount()).toBe(1);
    expect(message.blocks?.[0]).toEqual({ type: 'markdown', text: reply });
    expect(message.text).toBe('*Plan*\n\n1. *Pack*\n2. Go');
    expect(bot.slack.callsTo('chat.startStream').map((call) => call.result.error)).toEqual([
      'unknown_method',
    ]);
  });

  it('answers a DM', async () => {
    bot.gateway.enqueue({ text: 'Hello over the socket.' });
    await bot.deliverEvent(directMessage({ channel: 'D0SOCKET01', text: 'hi' }));
    const message = await finishedReply('D0SOCKET01');

    expect(message.blocks?.[0]).toEqual({ type: 'markdown', text: 'Hello over the socket.' });
  });

  it('acks a slash command at once with an empty payload, then uploads the image', async () => {
    const delivery = (await bot.deliverCommand(
      slashCommand({ command: '/imagine', text: 'a red kite', channel: 'C0SOCKET02' }),
    )) as SocketDelivery;
    const upload = await bot.slack.waitFor(() => bot.slack.uploadedFiles[0]);
    await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0SOCKET02')
        .find((message) => JSON.stringify(message.blocks ?? []).includes('Regenerate')),
    );

    expect(delivery.ack.type).toBe('slash_commands');
    expect(delivery.ack.ackDelayMs).toBeLessThan(3_000);
    expect(delivery.ack.payload ?? {}).toEqual({});
    expect(upload).toMatchObject({ name: 'parley-a-red-kite-1.png', channel: 'C0SOCKET02' });
  });

  it('regenerates a reply from its button over the socket', async () => {
    bot.gateway.enqueue({ text: 'First try.' });
    const mention = appMention({ channel: 'C0SOCKET03', text: 'a haiku' });
    await bot.deliverEvent(mention);
    const first = await finishedReply('C0SOCKET03', String(mention.ts));

    bot.gateway.enqueue({ text: 'Second try.' });
    const click = (await bot.deliverInteraction(
      buttonClick({
        actionId: buttonsOf(first)[0]?.action_id ?? '',
        messageTs: first.ts,
        channel: 'C0SOCKET03',
        threadTs: String(mention.ts),
      }),
    )) as SocketDelivery;
    const second = await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0SOCKET03', String(mention.ts))
        .find((message) => message.ts !== first.ts && buttonsOf(message)[0]?.text.text === 'Regenerate'),
    );

    expect(click.ack.type).toBe('interactive');
    expect(second.blocks?.[0]).toEqual({ type: 'markdown', text: 'Second try.' });
  });
});

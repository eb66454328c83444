import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  appMention,
  buttonClick,
  directMessage,
  type FakeSlack,
  messageShortcut,
  slashCommand,
  startFakeSlack,
} from '../fakes/slack/index.ts';
import { type AppUnderTest, startHttpApp } from './bolt-apps.ts';

type MentionArgs = SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs;

describe('fake slack: a real Bolt app in HTTP mode', () => {
  let fake: FakeSlack;
  let bolt: AppUnderTest;
  const mentions: MentionArgs[] = [];

  beforeAll(async () => {
    fake = await startFakeSlack({ rateLimits: false });
    bolt = await startHttpApp(fake, (app) => {
      app.event('app_mention', async (args) => {
        mentions.push(args);
        await args.say({ text: `You said: ${args.event.text}`, thread_ts: args.event.ts });
      });
      app.message(async ({ message, say }) => {
        if (message.channel.startsWith('D') && !('bot_id' in message)) {
          await say('dm reply');
        }
      });
      app.command('/ask', async ({ ack, respond, say, command }) => {
        await ack();
        await respond(`Working on: ${command.text}`);
        await say({ text: 'Done, for everyone' });
      });
      app.action('regenerate', async ({ ack, respond }) => {
        await ack();
        await respond({ replace_original: true, text: 'regenerated' });
      });
      app.shortcut('use_as_reference', async ({ ack, shortcut, client }) => {
        await ack();
        const channel = 'channel' in shortcut ? shortcut.channel.id : '';
        await client.chat.postMessage({ channel, text: 'Got the message' });
      });
    });
  });
  afterAll(async () => {
    await bolt.stop();
    await fake.close();
  });
  beforeEach(() => {
    fake.reset();
    mentions.length = 0;
  });
  afterEach(() => expect(bolt.errors).toEqual([]));

  it('acks a signed app_mention and replies in its thread', async () => {
    const event = appMention({ channel: 'C0BOLT0001', text: 'hello bot' });

    const delivery = await fake.deliverEvent({ event });
    const reply = await fake.waitFor(() => fake.messages('C0BOLT0001', String(event.ts))[0]);

    expect(delivery.status).toBe(200);
    expect(reply).toMatchObject({
      text: `You said: <@${fake.workspace.botUserId}> hello bot`,
      botId: fake.workspace.botId,
    });
    expect(fake.messages('C0BOLT0001')[0]).toMatchObject({ ts: event.ts, user: 'U0PERSON01' });
    // Bolt 5 gives event listeners with a thread these helpers.
    expect(typeof mentions[0]?.sayStream).toBe('function');
    expect(typeof mentions[0]?.setStatus).toBe('function');
    expect(mentions[0]?.body.event_id).toMatch(/^Ev/);
  });

  it('answers 401 to a forged or stale signature, and the listener never runs', async () => {
    const forged = await fake.deliverEvent({
      event: appMention({ channel: 'C0BOLT0002', text: 'evil' }),
      forgeSignature: true,
    });
    const stale = await fake.deliverEvent({
      event: appMention({ channel: 'C0BOLT0002', text: 'replayed' }),
      timestampSec: Math.floor(Date.now() / 1000) - 6 * 60,
    });

    expect([forged.status, stale.status]).toEqual([401, 401]);
    expect(mentions).toEqual([]);
    expect(fake.callsTo('chat.postMessage')).toEqual([]);
  });

  it('passes X-Slack-Retry-Num to the listener context', async () => {
    const event = appMention({ channel: 'C0BOLT0003', text: 'again' });

    await fake.deliverEvent({ event, eventId: 'Ev0SAMEEVENT', retryNum: 1, retryReason: 'http_timeout' });
    await fake.waitFor(() => mentions.length === 1);

    expect(mentions[0]?.context).toMatchObject({ retryNum: 1, retryReason: 'http_timeout' });
    expect(mentions[0]?.body.event_id).toBe('Ev0SAMEEVENT');
  });

  it('streams natively from a listener with sayStream and setStatus', async () => {
    bolt.app.event('app_mention', async ({ event, sayStream, setStatus }) => {
      if (!event.text.includes('stream please')) return;
      await setStatus?.('is thinking…');
      const streamer = sayStream?.({ buffer_size: 1 });
      await streamer?.append({ markdown_text: 'Streamed ' });
      await streamer?.append({ markdown_text: 'reply' });
      await streamer?.stop();
    });
    const event = appMention({ channel: 'C0BOLT0004', text: 'stream please', user: 'U0ASKER001' });

    await fake.deliverEvent({ event });
    const stream = await fake.waitFor(() => fake.streams.find((entry) => entry.state === 'stopped'));

    expect(stream).toMatchObject({
      channel: 'C0BOLT0004',
      threadTs: event.ts,
      recipientTeamId: fake.workspace.teamId,
      recipientUserId: 'U0ASKER001',
      text: 'Streamed reply',
    });
    // Listeners get a per-team WebClient, which adds `team_id` to every call.
    expect(fake.callsTo('assistant.threads.setStatus')[0]?.arguments).toEqual({
      team_id: fake.workspace.teamId,
      channel_id: 'C0BOLT0004',
      thread_ts: event.ts,
      status: 'is thinking…',
    });
  });

  it('delivers a DM as a message event', async () => {
    await fake.deliverEvent({ event: directMessage({ channel: 'D0BOLT0001', text: 'psst' }) });

    expect(await fake.waitFor(() => fake.messages('D0BOLT0001')[1])).toMatchObject({ text: 'dm reply' });
  });

  it('acks a slash command; respond goes to the response_url and say to the channel', async () => {
    const delivery = await fake.deliverSlashCommand({
      command: slashCommand({ command: '/ask', text: 'why is the sky blue', channel: 'C0BOLT0005' }),
    });
    await fake.waitFor(() => fake.messages('C0BOLT0005')[0]);

    expect(delivery.status).toBe(200);
    expect(fake.responseUrlPosts).toMatchObject([
      {
        body: { text: 'Working on: why is the sky blue' },
        status: 200,
        target: { kind: 'commands', channel: 'C0BOLT0005' },
      },
    ]);
    expect(fake.ephemeralMessages).toMatchObject([
      { text: 'Working on: why is the sky blue', source: 'response_url' },
    ]);
    expect(fake.messages('C0BOLT0005')).toMatchObject([{ text: 'Done, for everyone' }]);
  });

  it('delivers a button click; replace_original replaces the clicked message', async () => {
    fake.addMessage({
      channel: 'C0BOLT0006',
      user: fake.workspace.botUserId,
      botId: fake.workspace.botId,
      text: 'old answer',
      ts: '1700000000.000100',
    });

    const delivery = await fake.deliverInteraction({
      payload: buttonClick({
        actionId: 'regenerate',
        value: 'again',
        messageTs: '1700000000.000100',
        channel: 'C0BOLT0006',
      }),
    });
    await fake.waitFor(() => fake.responseUrlPosts[0]);

    expect(delivery.status).toBe(200);
    expect(fake.message('C0BOLT0006', '1700000000.000100')).toMatchObject({
      text: 'regenerated',
      editCount: 1,
    });
  });

  it('delivers a message shortcut', async () => {
    const delivery = await fake.deliverInteraction({
      payload: messageShortcut({
        callbackId: 'use_as_reference',
        messageTs: '1700000000.000200',
        channel: 'C0BOLT0007',
      }),
    });

    expect(delivery.status).toBe(200);
    expect(await fake.waitFor(() => fake.messages('C0BOLT0007')[0])).toMatchObject({
      text: 'Got the message',
    });
  });
});

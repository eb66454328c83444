import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createWebClient, slackErrorOf } from './web-client.ts';

describe('fake slack: native streaming with the real chatStream helper', () => {
  let fake: FakeSlack;
  let client: WebClient;

  beforeAll(async () => {
    fake = await startFakeSlack({ rateLimits: false });
    client = createWebClient(fake);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  function recipient() {
    return { recipient_team_id: fake.workspace.teamId, recipient_user_id: 'U0PERSON01' };
  }

  it('keeps the streamed text and final state, exactly as appended', async () => {
    const thread = fake.addMessage({ channel: 'C0STREAM01', user: 'U0PERSON01', text: 'tell me' });
    const streamer = client.chatStream({
      channel: 'C0STREAM01',
      thread_ts: thread.ts,
      ...recipient(),
      buffer_size: 10,
    });

    await streamer.append({ markdown_text: 'Hello' });
    await streamer.append({ markdown_text: ', **world**' });
    await streamer.append({ markdown_text: ' and more' });
    await streamer.stop({ blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'by parley' }] }] });

    const [stream] = fake.streams;
    expect(stream).toMatchObject({
      channel: 'C0STREAM01',
      threadTs: thread.ts,
      recipientTeamId: fake.workspace.teamId,
      recipientUserId: 'U0PERSON01',
      state: 'stopped',
      text: 'Hello, **world** and more',
      blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: 'by parley' }] }],
    });
    // The helper buffers: nothing goes out below buffer_size, then the whole buffer as one chunk.
    expect(stream?.writes.map((write) => [write.method, write.markdownText])).toEqual([
      ['chat.startStream', 'Hello, **world**'],
      ['chat.stopStream', ' and more'],
    ]);
    expect(fake.messages('C0STREAM01', thread.ts)).toMatchObject([
      {
        ts: stream?.ts,
        text: 'Hello, **world** and more',
        streamingState: 'completed',
        botId: fake.workspace.botId,
      },
    ]);
  });

  it('shows what the helper sends: chunks, not markdown_text', async () => {
    const thread = fake.addMessage({ channel: 'C0STREAM02', user: 'U0PERSON01', text: 'tell me' });
    const streamer = client.chatStream({
      channel: 'C0STREAM02',
      thread_ts: thread.ts,
      ...recipient(),
      buffer_size: 1,
    });

    await streamer.append({ markdown_text: 'one' });
    await streamer.append({ markdown_text: 'two' });
    await streamer.stop();

    expect(fake.calls.map((call) => [call.method, call.arguments])).toEqual([
      [
        'chat.startStream',
        {
          channel: 'C0STREAM02',
          thread_ts: thread.ts,
          recipient_team_id: fake.workspace.teamId,
          recipient_user_id: 'U0PERSON01',
          chunks: [{ type: 'markdown_text', text: 'one' }],
        },
      ],
      [
        'chat.appendStream',
        { channel: 'C0STREAM02', ts: fake.streams[0]?.ts, chunks: [{ type: 'markdown_text', text: 'two' }] },
      ],
      ['chat.stopStream', { channel: 'C0STREAM02', ts: fake.streams[0]?.ts, chunks: [] }],
    ]);
    expect(fake.streams[0]?.text).toBe('onetwo');
  });

  it('takes markdown_text directly too, and refuses more than 12,000 characters in one call', async () => {
    const start = await client.chat.startStream({
      channel: 'D0DIRECT02',
      thread_ts: '1700000000.000001',
      markdown_text: 'a',
    });
    await client.chat.appendStream({ channel: 'D0DIRECT02', ts: start.ts as string, markdown_text: 'b' });

    expect(
      await slackErrorOf(
        client.chat.appendStream({
          channel: 'D0DIRECT02',
          ts: start.ts as string,
          markdown_text: 'x'.repeat(12_001),
        }),
      ),
    ).toBe('msg_too_long');
    expect(fake.streams[0]?.text).toBe('ab');
  });

  it('needs the recipient in a channel but not in a DM', async () => {
    expect(
      await slackErrorOf(
        client.chat.startStream({
          channel: 'C0STREAM03',
          thread_ts: '1700000000.000001',
          markdown_text: 'x',
        }),
      ),
    ).toBe('missing_recipient_team_id');
    expect(
      await slackErrorOf(
        client.chat.startStream({
          channel: 'C0STREAM03',
          thread_ts: '1700000000.000001',
          recipient_team_id: fake.workspace.teamId,
          markdown_text: 'x',
        }),
      ),
    ).toBe('missing_recipient_user_id');
    expect(fake.streams).toEqual([]);

    const dm = await client.chat.startStream({
      channel: 'D0DIRECT03',
      thread_ts: '1700000000.000001',
      markdown_text: 'x',
    });
    expect(dm.ok).toBe(true);
  });

  it('refuses to append to a stopped stream', async () => {
    const start = await client.chat.startStream({
      channel: 'D0DIRECT04',
      thread_ts: '1700000000.000001',
      markdown_text: 'a',
    });
    await client.chat.stopStream({ channel: 'D0DIRECT04', ts: start.ts as string });

    expect(
      await slackErrorOf(
        client.chat.appendStream({ channel: 'D0DIRECT04', ts: start.ts as string, markdown_text: 'b' }),
      ),
    ).toBe('message_not_in_streaming_state');
  });

  it.each(['not_allowed', 'unknown_method'] as const)(
    'answers %s like an app without the AI feature',
    async (mode) => {
      fake.setNativeStreaming(mode);
      const streamer = client.chatStream({ channel: 'D0DIRECT05', thread_ts: '1700000000.000001' });

      expect(await slackErrorOf(streamer.stop({ markdown_text: 'hi' }))).toBe(mode);
      expect(fake.streams).toEqual([]);
      expect(fake.messages('D0DIRECT05')).toEqual([]);
    },
  );

  it('accepts assistant.threads.setStatus and logs each status', async () => {
    await client.assistant.threads.setStatus({
      channel_id: 'C0STREAM04',
      thread_ts: '1700000000.000001',
      status: 'is thinking…',
    });
    await client.assistant.threads.setStatus({
      channel_id: 'C0STREAM04',
      thread_ts: '1700000000.000001',
      status: '',
    });

    expect(fake.callsTo('assistant.threads.setStatus').map((call) => call.arguments.status)).toEqual([
      'is thinking…',
      '',
    ]);
  });

  it('refuses a stream for a recipient of another team, a deactivated one, or where posting is restricted', async () => {
    fake.addUser({ id: 'U0GONE0001', isDeleted: true });
    fake.addChannel({ id: 'C0READONLY', postingRestriction: 'restricted_action_read_only_channel' });
    const start = (channel: string, recipientTeamId: string, recipientUserId: string) =>
      slackErrorOf(
        client.chat.startStream({
          channel,
          thread_ts: '1700000000.000001',
          recipient_team_id: recipientTeamId,
          recipient_user_id: recipientUserId,
          markdown_text: 'x',
        }),
      );

    expect(await start('C0STREAM05', 'T0OTHERTEAM', 'U0PERSON01')).toBe('team_not_found');
    expect(await start('C0STREAM05', fake.workspace.teamId, 'U0GONE0001')).toBe('user_not_found');
    expect(await start('C0READONLY', fake.workspace.teamId, 'U0PERSON01')).toBe(
      'restricted_action_read_only_channel',
    );
    expect(await slackErrorOf(client.chat.postMessage({ channel: 'C0READONLY', text: 'x' }))).toBe(
      'restricted_action_read_only_channel',
    );
    expect(fake.streams).toEqual([]);
  });
});

describe('fake slack: streams Slack ends on its own', () => {
  let fake: FakeSlack;
  let client: WebClient;

  beforeAll(async () => {
    fake = await startFakeSlack({ rateLimits: false, streamIdleTimeoutMs: 200, isMessagesTabEnabled: false });
    client = createWebClient(fake);
  });
  afterAll(() => fake.close());

  it('ends a stream that goes without writes, keeping its text; later writes are refused', async () => {
    const start = await client.chat.startStream({
      channel: 'C0IDLE0001',
      thread_ts: '1700000000.000001',
      recipient_team_id: fake.workspace.teamId,
      recipient_user_id: 'U0PERSON01',
      markdown_text: 'so far',
    });
    await fake.waitFor(() => fake.streams[0]?.state === 'stopped');

    expect(fake.message('C0IDLE0001', String(start.ts))).toMatchObject({
      text: 'so far',
      streamingState: 'completed',
    });
    expect(
      await slackErrorOf(
        client.chat.appendStream({ channel: 'C0IDLE0001', ts: String(start.ts), markdown_text: '!' }),
      ),
    ).toBe('message_not_in_streaming_state');
  });

  it('refuses a stream into a DM when the app has no Messages tab', async () => {
    expect(
      await slackErrorOf(
        client.chat.startStream({
          channel: 'D0DIRECT06',
          thread_ts: '1700000000.000001',
          markdown_text: 'x',
        }),
      ),
    ).toBe('messages_tab_disabled');
  });
});

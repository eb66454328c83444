import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgentSessions } from '../../adapters/slack/agent-session-records.ts';
import type { SlackDeliveryContext } from '../../adapters/slack/reply-place.ts';
import { createReplySurface } from '../../adapters/slack/reply-surface.ts';
import { editIntervals } from '../../adapters/slack/slack-limits.ts';
import { createSlackOutbound } from '../../adapters/slack/slack-outbound.ts';
import { createWorkspaceFeatures } from '../../adapters/slack/workspace-features.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { PostedMessage, Surface } from '../../src/delivery/surface.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

const regenerate: Action = { id: 'parley:chat.regenerate:token1', label: 'Regenerate', style: 'secondary' };

/**
 * The reply surface driven call by call (as delivery would), with the real WebClient against the fake
 * Slack: the cases a model stream hits only by chance, made certain.
 */
describe('slack reply surface', () => {
  let slack: FakeSlack;
  let client: webApi.WebClient;
  let context: SlackDeliveryContext;
  const thread = '1700000000.000100';

  beforeAll(async () => {
    slack = await startFakeSlack({ rateLimits: false });
    client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(() => slack.close());
  beforeEach(() => {
    slack.reset();
    context = {
      features: createWorkspaceFeatures(),
      outbound: createSlackOutbound(),
      logger: createCapturedLogger().logger,
      stopButtonDelayMs: 60_000,
      thinkingStatusDelayMs: 1_000,
      agentSessions: createAgentSessions('auto'),
    };
  });

  function surfaceIn(channel: string, threadTs: string | null = thread): Surface {
    slack.addMessage({ channel, ts: thread, user: 'U0PERSON01', text: 'question' });
    return createReplySurface({
      place: {
        client,
        teamId: slack.workspace.teamId,
        channel,
        threadTs: threadTs ?? undefined,
        recipientUserId: 'U0PERSON01',
      },
      context,
    });
  }

  // As delivery posts: the platform's own streaming where it is available, else a plain post.
  async function postFirst(surface: Surface, text: string): Promise<PostedMessage> {
    const streamed = (await surface.stream?.(text)) ?? 'not-available';
    return streamed === 'not-available' ? surface.post(text) : streamed;
  }

  it('streams only what continues the text, holding back a code fence delivery will take back', async () => {
    const surface = surfaceIn('C0SURFACE1');
    const message = await postFirst(surface, 'Look:');
    await surface.edit(message, 'Look:\n```js\nlet x\n```');
    await surface.edit(message, 'Look:\n```js\nlet x = 1;\n```');
    // The final write carries the buttons.
    await surface.edit(message, 'Look:\n```js\nlet x = 1;\n```\nDone.', {
      isFinal: true,
      actions: [regenerate],
    });

    const [stream] = slack.streams;
    expect(stream?.writes.map((write) => write.markdownText)).toEqual([
      'Look:',
      '\n```js\nlet x',
      ' = 1;',
      '\n```\nDone.',
    ]);
    expect(stream).toMatchObject({ state: 'stopped', text: 'Look:\n```js\nlet x = 1;\n```\nDone.' });
    expect(JSON.stringify(stream?.blocks)).toContain('parley:chat.regenerate:token1');
  });

  it('ends the stream and rewrites the message when delivery moves a rollover cut back', async () => {
    const surface = surfaceIn('C0SURFACE2');
    const message = await postFirst(surface, 'first paragraph\n\nsecond');
    await surface.edit(message, 'first paragraph\n\nsecond paragraph');
    await surface.edit(message, 'first paragraph\n\n');

    expect(slack.streams[0]).toMatchObject({ state: 'stopped', text: 'first paragraph\n\nsecond paragraph' });
    expect(slack.message('C0SURFACE2', message.id)?.blocks).toEqual([
      { type: 'markdown', text: 'first paragraph\n\n' },
    ]);
    // Later edits and buttons go through chat.update from then on.
    await surface.setActions?.(message, [regenerate]);
    expect(slack.message('C0SURFACE2', message.id)?.blocks).toHaveLength(2);
    expect(slack.callsTo('chat.appendStream')).toHaveLength(1);
  });

  it('rewrites the message when Slack has ended the stream on its own', async () => {
    const surface = surfaceIn('C0SURFACE3');
    const message = await postFirst(surface, 'Part one');
    await client.chat.stopStream({ channel: 'C0SURFACE3', ts: message.id });
    await surface.edit(message, 'Part one, part two');

    expect(slack.message('C0SURFACE3', message.id)?.blocks).toEqual([
      { type: 'markdown', text: 'Part one, part two' },
    ]);
  });

  it('falls back to chat.update once Slack refuses native streaming, and remembers it', async () => {
    slack.setNativeStreaming('not_allowed');
    const surface = surfaceIn('C0SURFACE4');
    expect(surface.limits.minEditIntervalMs).toBe(editIntervals.nativeStreamMs);
    const first = await postFirst(surface, 'Hello');
    expect(surface.limits.minEditIntervalMs).toBeGreaterThanOrEqual(1_300);
    const second = await postFirst(surfaceIn('C0SURFACE5'), 'Again');

    expect(slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(slack.message('C0SURFACE4', first.id)?.blocks).toEqual([{ type: 'markdown', text: 'Hello' }]);
    expect(slack.message('C0SURFACE5', second.id)?.text).toBe('Again');
  });

  it('posts at the top of a channel, without streaming, when there is no thread', async () => {
    const surface = surfaceIn('D0SURFACE6', null);
    const message = await postFirst(surface, '**Hi** & <welcome>');
    await surface.setActions?.(message, [regenerate]);

    const stored = slack.message('D0SURFACE6', message.id);
    expect(stored?.threadTs).toBeUndefined();
    expect(stored?.text).toBe('*Hi* &amp; &lt;welcome&gt;');
    expect(stored?.blocks?.[0]).toEqual({ type: 'markdown', text: '**Hi** & <welcome>' });
    expect(slack.callsTo('chat.startStream')).toEqual([]);
  });

  it('refuses task chunks and display modes Slack does not document', async () => {
    slack.addMessage({ channel: 'C0SURFACE7', ts: thread, user: 'U0PERSON01', text: 'question' });
    const started = { channel: 'C0SURFACE7', thread_ts: thread, recipient_team_id: slack.workspace.teamId };
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => 'accepted',
        (error: { data?: { error?: string } }) => error.data?.error,
      );
    const task = { type: 'task_update', id: 'call_1', title: 'searching' } as const;
    expect(
      await refusal(
        client.chat.startStream({
          ...started,
          recipient_user_id: 'U0PERSON01',
          // @ts-expect-error `running` is not one of the documented statuses.
          chunks: [{ ...task, status: 'running' }],
        }),
      ),
    ).toBe('invalid_chunks');
    expect(
      await refusal(
        client.chat.startStream({
          ...started,
          recipient_user_id: 'U0PERSON01',
          chunks: [{ ...task, status: 'complete', sources: [{ type: 'url', url: 'https://a.example' }] }],
        } as never),
      ),
    ).toBe('invalid_chunks');
    expect(
      await refusal(
        client.chat.startStream({
          ...started,
          recipient_user_id: 'U0PERSON01',
          chunks: [{ ...task, status: 'in_progress' }],
          task_display_mode: 'cards',
        }),
      ),
    ).toBe('invalid_arguments');
    expect(slack.streams).toEqual([]);
  });

  it('starts the stream with a tool step, and a reply that is whole ends it in one stop', async () => {
    const surface = surfaceIn('C0SURFACE8');
    const step = { id: 'call_1', title: '🔎 searching: tides' } as const;
    expect(await surface.showToolStep?.({ ...step, status: 'running' })).toBe('shown');
    expect(
      await surface.showToolStep?.({
        ...step,
        status: 'complete',
        sources: [{ title: 'Tide times', url: 'https://tides.example/brest' }],
      }),
    ).toBe('shown');
    const message = await surface.stream?.('High tide at 14:05.', { isWhole: true, actions: [regenerate] });

    const [stream] = slack.streams;
    expect(message).toEqual({ id: stream?.ts });
    expect(stream?.writes.map((write) => write.method)).toEqual([
      'chat.startStream',
      'chat.appendStream',
      'chat.stopStream',
    ]);
    expect([...(stream?.tasks.values() ?? [])]).toEqual([
      {
        type: 'task_update',
        id: 'call_1',
        title: '🔎 searching: tides',
        status: 'complete',
        sources: [{ type: 'url', url: 'https://tides.example/brest', text: 'Tide times' }],
      },
    ]);
    expect(stream).toMatchObject({ state: 'stopped', text: 'High tide at 14:05.', planTitle: undefined });
    expect(JSON.stringify(stream?.blocks)).toContain('parley:chat.regenerate:token1');
  });

  it('says a step is not shown where it cannot stream, so delivery shows it in the text', async () => {
    const surface = surfaceIn('D0SURFACE9', null);
    expect(await surface.showToolStep?.({ id: 'call_1', title: 'x', status: 'running' })).toBe('not-shown');
    expect(surface.toolStepLines).toBe('latest');
    expect(slack.callsTo('chat.startStream')).toEqual([]);
  });
});

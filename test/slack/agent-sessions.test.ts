import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../src/tools/tool.ts';
import { appMention, buttonClick, defaultPersonId } from '../fakes/slack/index.ts';
import { botReplies, buttonsOf, finishedReplies } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

/**
 * Agent sessions (docs.slack.dev/ai/agent-sessions): for an app declared as an agent, a reply's
 * thread shows its session as processing (with Slack's stop button) while parley works, active once
 * it has answered, and the title the title model gave it. An app that is not an agent keeps the
 * assistant thread calls. The fake Slack refuses agents.sessions.* for an app not declared one.
 */
describe('slack: agent sessions', () => {
  let bot: SlackUnderTest | undefined;
  afterEach(async () => {
    await bot?.close();
    bot = undefined;
  });
  afterAll(async () => bot?.close());

  const statusesOf = (under: SlackUnderTest) =>
    under.slack.callsTo('agents.sessions.setStatus').map((call) => call.arguments.status);

  it('shows a declared agent’s reply as processing, then active, and names the session', async () => {
    const under = await startSlackUnderTest({
      mode: 'http',
      thinkingStatusDelayMs: 0,
      slackOptions: { isDeclaredAgent: true },
    });
    bot = under;
    under.gateway.enqueue({ text: 'The tide turns at six.', latencyMs: 300 });
    under.gateway.enqueue({ text: JSON.stringify({ title: 'Tides at Brest' }) });
    const mention = appMention({ channel: 'C0SESSION1', text: 'when is the tide at Brest?' });
    await under.deliverEvent(mention);
    const session = await under.slack.waitFor(() => {
      const found = under.slack.agentSessions.sessions.get(`C0SESSION1 ${mention.ts}`);
      return found?.status === 'active' && found.title === 'Tides at Brest' ? found : undefined;
    });

    expect(session.statuses).toEqual(['processing', 'active']);
    expect(session.initiatorUserId).toBe(defaultPersonId);
    expect(under.slack.callsTo('agents.sessions.setStatus')[0]?.arguments).toMatchObject({
      channel_id: 'C0SESSION1',
      thread_ts: mention.ts,
      status: 'processing',
    });
    expect(under.slack.callsTo('agents.sessions.rename')[0]?.arguments).toMatchObject({
      channel_id: 'C0SESSION1',
      thread_ts: mention.ts,
      title: 'Tides at Brest',
    });
    // The session's processing status stands in for "is thinking…".
    expect(under.slack.callsTo('assistant.threads.setStatus')).toEqual([]);
    const stream = under.slack.streams.find((entry) => entry.state === 'stopped');
    expect(stream?.text).toBe('The tide turns at six.');
  });

  it('falls back to the assistant thread status where the app is not an agent, trying sessions once', async () => {
    const under = await startSlackUnderTest({ mode: 'http', thinkingStatusDelayMs: 0 });
    bot = under;
    for (const channel of ['C0SESSION2', 'C0SESSION3']) {
      under.gateway.enqueue({ text: `Answer in ${channel}.`, latencyMs: 200 });
      const mention = appMention({ channel, text: 'hello?' });
      await under.deliverEvent(mention);
      await under.slack.waitFor(() =>
        under.slack.streams.find((entry) => entry.channel === channel && entry.state === 'stopped'),
      );
      const status = await under.slack.waitFor(() =>
        under.slack
          .callsTo('assistant.threads.setStatus')
          .find((call) => call.arguments.channel_id === channel),
      );
      expect(status.arguments).toMatchObject({ thread_ts: mention.ts, status: 'is thinking…' });
    }

    const tried = under.slack.callsTo('agents.sessions.setStatus');
    expect(tried).toHaveLength(1);
    expect(tried[0]?.result).toMatchObject({ ok: false, error: 'not_allowed' });
    expect(under.slack.agentSessions.sessions.size).toBe(0);
  });

  it('in auto, asks whether the app is an agent only when a reply is slow to show text; then at once', async () => {
    const under = await startSlackUnderTest({
      mode: 'http',
      thinkingStatusDelayMs: 800,
      slackOptions: { isDeclaredAgent: true },
    });
    bot = under;
    const ask = async (channel: string, latencyMs: number) => {
      under.gateway.enqueue({ text: `Answer in ${channel}.`, latencyMs });
      const mention = appMention({ channel, text: 'hello?' });
      await under.deliverEvent(mention);
      await finishedReplies(under, channel, String(mention.ts));
      return `${channel} ${mention.ts}`;
    };
    // Quick, before Slack has said anything about sessions here: no call to find out.
    await ask('C0SESSION5', 50);
    expect(statusesOf(under)).toEqual([]);
    // Slow: the question goes out when "is thinking…" would, and the session starts.
    const slow = await ask('C0SESSION6', 1_500);
    await under.slack.waitFor(() => under.slack.agentSessions.sessions.get(slow)?.status === 'active');
    // Known to be an agent now: even a quick reply's session starts at once.
    const quick = await ask('C0SESSION7', 50);
    await under.slack.waitFor(() => under.slack.agentSessions.sessions.get(quick)?.status === 'active');
    expect(statusesOf(under)).toEqual(['processing', 'active', 'processing', 'active']);
  });

  it('never calls agents.sessions.* with SLACK_AGENT_SESSIONS=off', async () => {
    const under = await startSlackUnderTest({
      mode: 'http',
      thinkingStatusDelayMs: 0,
      slackOptions: { isDeclaredAgent: true },
      environment: { SLACK_AGENT_SESSIONS: 'off' },
    });
    bot = under;
    under.gateway.enqueue({ text: 'Plain answer.', latencyMs: 200 });
    const mention = appMention({ channel: 'C0SESSION4', text: 'plain?' });
    await under.deliverEvent(mention);
    await under.slack.waitFor(() => under.slack.streams.find((entry) => entry.state === 'stopped'));
    await under.slack.waitFor(() => under.slack.callsTo('assistant.threads.setStatus')[0]);

    expect(statusesOf(under)).toEqual([]);
    expect(under.slack.callsTo('agents.sessions.rename')).toEqual([]);
  });

  it('closes the session when the thread’s conversation is reset', async () => {
    const under = await startSlackUnderTest({
      mode: 'http',
      thinkingStatusDelayMs: 0,
      slackOptions: { isDeclaredAgent: true },
    });
    bot = under;
    under.gateway.enqueue({ text: 'Noted.' });
    under.gateway.enqueue({ text: JSON.stringify({ title: 'A note' }) });
    const mention = appMention({ channel: 'C0SESSION5', text: 'remember 42' });
    await under.deliverEvent(mention);
    const key = `C0SESSION5 ${mention.ts}`;
    await under.slack.waitFor(() => under.slack.agentSessions.sessions.get(key)?.title === 'A note');

    await under.deliverEvent(
      appMention({ channel: 'C0SESSION5', threadTs: String(mention.ts), text: 'reset' }),
    );
    const session = await under.slack.waitFor(() => {
      const found = under.slack.agentSessions.sessions.get(key);
      return found?.status === 'closed' ? found : undefined;
    });

    expect(session.statuses).toEqual(['processing', 'active', 'closed']);
  });

  it('renames the session with /title in its thread', async () => {
    const under = await startSlackUnderTest({
      mode: 'http',
      thinkingStatusDelayMs: 0,
      slackOptions: { isDeclaredAgent: true },
    });
    bot = under;
    under.gateway.enqueue({ text: 'Planned.' });
    under.gateway.enqueue({ text: JSON.stringify({ title: 'Some plan' }) });
    const mention = appMention({ channel: 'C0SESSION6', text: 'plan the release' });
    await under.deliverEvent(mention);
    const key = `C0SESSION6 ${mention.ts}`;
    await under.slack.waitFor(() => under.slack.agentSessions.sessions.get(key)?.title === 'Some plan');

    await under.deliverEvent(
      appMention({ channel: 'C0SESSION6', threadTs: String(mention.ts), text: '/title Release plan' }),
    );
    await under.slack.waitFor(() => under.slack.agentSessions.sessions.get(key)?.title === 'Release plan');

    expect(under.slack.callsTo('agents.sessions.rename').map((call) => call.arguments.title)).toEqual([
      'Some plan',
      'Release plan',
    ]);
  });

  it('is active, not suspended, once the reply that asked an acting tool’s question ends', async () => {
    const under = await startSlackUnderTest({
      mode: 'http',
      thinkingStatusDelayMs: 0,
      slackOptions: { isDeclaredAgent: true },
      environment: { CHAT_MODEL: 'tools-model' },
    });
    bot = under;
    const calls: unknown[] = [];
    const acting: Tool = {
      name: 'test_write',
      title: 'test_write',
      description: 'The test tool test_write.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      annotations: { isReadOnly: false, isDestructive: true, isOpenWorld: false },
      source: 'test',
      priceNanos: 0,
      deadlineMs: 5_000,
      maxResultCharacters: 1_000,
      describeCall: () => '⚙ test_write',
      async run({ arguments: toolArguments }) {
        calls.push(toolArguments);
        return { text: 'written' };
      },
    };
    under.app.toolbox.replace('test', [acting]);
    under.gateway.enqueue({ toolCalls: [{ name: 'test_write', arguments: { text: 'hello' } }] });
    under.gateway.enqueue({ text: 'I asked you first.' });
    under.gateway.enqueue({ text: JSON.stringify({ title: 'Writing hello' }) });
    const mention = appMention({ channel: 'C0SESSION7', text: 'write hello' });
    await under.deliverEvent(mention);
    const key = `C0SESSION7 ${mention.ts}`;
    const question = await under.slack.waitFor(() =>
      botReplies(under, 'C0SESSION7', String(mention.ts)).find((message) =>
        buttonsOf(message).some((button) => button.text.text === 'Approve'),
      ),
    );
    // The reply that asked does not wait for the answer: it ends, and the session is active.
    await under.slack.waitFor(() => under.slack.agentSessions.sessions.get(key)?.title === 'Writing hello');
    await under.slack.waitFor(() => under.slack.agentSessions.sessions.get(key)?.status === 'active');
    expect(calls).toEqual([]);
    under.gateway.enqueue({ text: 'Written.' });
    const approve = buttonsOf(question).find((button) => button.text.text === 'Approve');
    await under.slack.deliverInteraction({
      payload: buttonClick({
        actionId: approve?.action_id ?? '',
        messageTs: question.ts,
        channel: 'C0SESSION7',
        threadTs: String(mention.ts),
      }),
    });
    await under.slack.waitFor(() =>
      botReplies(under, 'C0SESSION7', String(mention.ts)).find((message) =>
        message.text.includes('Written.'),
      ),
    );
    const session = under.slack.agentSessions.sessions.get(key);

    expect(calls).toEqual([{ text: 'hello' }]);
    // Never suspended: nothing waits for the answer; the approved call answers in a reply of its own.
    expect(session?.statuses).toEqual(['processing', 'active']);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { threadTextCommandOf } from '../../adapters/slack/thread-text-commands.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { appMention, directMessage } from '../fakes/slack/index.ts';
import { botReplies, finishedReplies } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

const bot = 'U0FAKEBOT1';

const summaryOfThread = {
  title: 'The answer',
  tldr: 'The answer is 42.',
  keyPoints: ['Someone asked for the answer', 'It is 42'],
  decisions: [],
  actionItems: [],
  openQuestions: [],
};

describe('text commands: which messages name a command', () => {
  it('takes the command words the issue names, in the shapes that cannot be speech', () => {
    expect(threadTextCommandOf(`<@${bot}> summarize`, bot)?.command.name).toBe('summarize');
    expect(threadTextCommandOf(`<@${bot}> summarize the decisions --m 50`, bot)?.text).toBe(
      'the decisions --m 50',
    );
    expect(threadTextCommandOf(`<@${bot}> model chat-model`, bot)?.command.name).toBe('model');
    expect(threadTextCommandOf(`<@${bot}> reset`, bot)?.command.name).toBe('reset');
    expect(threadTextCommandOf(`<@${bot}> usage --top`, bot)?.command.name).toBe('usage');
    expect(threadTextCommandOf('help', bot)?.command.name).toBe('help');
    expect(threadTextCommandOf(`<@${bot}> system Answer like a pirate.`, bot)?.text).toBe(
      'Answer like a pirate.',
    );
  });

  it('leaves questions that merely start with such a word to the chat', () => {
    expect(threadTextCommandOf(`<@${bot}> help me write a reply`, bot)).toBeUndefined();
    expect(threadTextCommandOf(`<@${bot}> reset my password how?`, bot)).toBeUndefined();
    expect(threadTextCommandOf(`<@${bot}> model the data as a graph`, bot)).toBeUndefined();
    expect(threadTextCommandOf(`<@${bot}> imagine a cat`, bot)).toBeUndefined();
    expect(threadTextCommandOf(`<@${bot}> /help please`, bot)?.command.name).toBe('help');
    expect(threadTextCommandOf(`<@${bot}> /imagine a cat`, bot)?.text).toBe('a cat');
  });
});

describe('slack: a mention followed by a command runs it in the thread', () => {
  let slack: SlackUnderTest;

  beforeAll(async () => {
    slack = await startSlackUnderTest({
      mode: 'http',
      slackOptions: { nativeStreaming: 'not_allowed' },
      // Only admins may change a conversation's model.
      prepare: (fake) => fake.addUser({ id: 'U0PERSON01', isAdmin: true }),
      environment: { SELECTABLE_MODELS: 'chat-model,data-uri-image-model' },
    });
  });
  afterAll(() => slack.close());
  beforeEach(() => slack.reset());

  it('summarize, model and reset act on the thread’s own conversation, in the thread', async () => {
    slack.gateway.enqueue({ text: 'It is 42.' });
    const question = appMention({ channel: 'C0THREADS1', text: 'what is the answer?' });
    const threadTs = String(question.ts);
    await slack.deliverEvent(question);
    await finishedReplies(slack, 'C0THREADS1', threadTs);
    const key = conversationKeyOf({
      platform: 'slack',
      workspace: 'T0FAKETEAM',
      channel: 'C0THREADS1',
      thread: threadTs,
    });

    await slack.deliverEvent(
      appMention({ channel: 'C0THREADS1', threadTs, text: 'model data-uri-image-model' }),
    );
    const answered = await slack.slack.waitFor(
      () =>
        botReplies(slack, 'C0THREADS1', threadTs).find((message) =>
          /data-uri-image-model/.test(message.text),
        ) ?? slack.slack.ephemeralMessages.find((message) => /data-uri-image-model/.test(message.text)),
    );
    expect(answered.threadTs).toBe(threadTs);
    expect((await slack.services.settings.get(key)).model).toBe('data-uri-image-model');

    slack.gateway.enqueue({ text: JSON.stringify(summaryOfThread) });
    await slack.deliverEvent(appMention({ channel: 'C0THREADS1', threadTs, text: 'summarize' }));
    await slack.slack.waitFor(() => slack.slack.callsTo('conversations.replies').length > 0);
    const summary = await slack.slack.waitFor(() =>
      botReplies(slack, 'C0THREADS1', threadTs).find((message) =>
        JSON.stringify(message.blocks ?? []).includes('The answer is 42.'),
      ),
    );
    expect(summary.threadTs).toBe(threadTs);
    expect(slack.slack.callsTo('conversations.replies')[0]?.arguments.ts).toBe(threadTs);

    await slack.deliverEvent(appMention({ channel: 'C0THREADS1', threadTs, text: 'reset' }));
    await slack.slack.waitFor(
      () =>
        botReplies(slack, 'C0THREADS1', threadTs).find((message) => /forg/i.test(message.text)) ??
        slack.slack.ephemeralMessages.find((message) => /forg/i.test(message.text)),
    );
    expect(await slack.services.history.load(key)).toEqual([]);
  });

  it('draws in a DM thread with /imagine, saying "drawing…" under the thread meanwhile', async () => {
    const root = directMessage({ channel: 'D0THREADS3', text: '/imagine a red kite' });
    await slack.deliverEvent({ ...root, thread_ts: root.ts });
    const upload = await slack.slack.waitFor(() => slack.slack.uploadedFiles[0]);

    expect(upload).toBeDefined();
    const statuses = slack.slack.callsTo('assistant.threads.setStatus').map((call) => call.arguments);
    expect(statuses).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ thread_ts: String(root.ts), status: expect.stringMatching(/drawing/) }),
      ]),
    );
    const images = slack.gateway.requests.filter((request) => request.path.endsWith('/images/generations'));
    expect(JSON.stringify(images[0]?.body)).toContain('a red kite');
  });

  it('answers help in an agent-view DM thread without a mention, and chats when the words are a question', async () => {
    const root = directMessage({ channel: 'D0THREADS2', text: 'help' });
    await slack.deliverEvent({ ...root, thread_ts: root.ts });
    const help = await slack.slack.waitFor(
      () =>
        slack.slack.ephemeralMessages.find((message) => message.channel === 'D0THREADS2') ??
        botReplies(slack, 'D0THREADS2', String(root.ts))[0],
    );
    expect(JSON.stringify(help)).toMatch(/summarize/i);
    // /help on Slack says how conversations live here.
    expect(JSON.stringify(help)).toContain('every thread is its own conversation');
    expect(
      slack.gateway.requests.filter((request) => request.path.endsWith('/chat/completions')),
    ).toHaveLength(0);

    slack.gateway.enqueue({ text: 'Sure: "Thanks!"' });
    const question = directMessage({ channel: 'D0THREADS2', text: 'help me write a reply' });
    await slack.deliverEvent({ ...question, thread_ts: question.ts });
    const [reply] = await finishedReplies(slack, 'D0THREADS2', String(question.ts));
    expect(reply?.text).toContain('Thanks!');
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { messageShortcut, viewSubmission } from '../fakes/slack/index.ts';
import { botReplies, finishedReplies, lastUserContent } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

const summary = {
  title: 'Since the failure',
  tldr: 'The build broke and was fixed.',
  keyPoints: ['Step 3 failed', 'A retry fixed it'],
  decisions: [],
  actionItems: [],
  openQuestions: [],
};

const extraction = {
  title: 'Invoice 42',
  summary: 'An invoice total.',
  fields: [{ name: 'Total', value: '$12.50' }],
  table: null,
};

describe('slack message shortcuts: Ask parley, Summarize from here, Extract data', () => {
  let bot: SlackUnderTest;
  const chatRequests = () =>
    bot.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http', slackOptions: { nativeStreaming: 'not_allowed' } });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('Ask parley opens a modal for the question and answers in the message’s thread, quoting it', async () => {
    const asked = bot.slack.addMessage({
      channel: 'C0SHORTC01',
      user: 'U0ADA00001',
      text: 'The build failed on step 3',
    });
    await bot.deliverInteraction(
      messageShortcut({ callbackId: 'parley_ask', channel: 'C0SHORTC01', messageTs: asked.ts }),
    );
    const opened = await bot.slack.waitFor(() => bot.slack.openedViews[0]);

    expect(opened.view.callback_id).toBe('parley:ask');
    bot.gateway.enqueue({ text: 'Step 3 runs the migrations; check the database.' });
    const submitted = (await bot.deliverInteraction(
      viewSubmission({ view: opened.view, values: { question: 'Why would that fail?' } }),
    )) as { status?: number };
    expect(submitted.status).toBe(200);
    const [answer] = await finishedReplies(bot, 'C0SHORTC01', asked.ts);

    expect(answer?.text).toContain('check the database');
    expect(lastUserContent(bot)).toContain('Why would that fail?');
    expect(lastUserContent(bot)).toContain('> The build failed on step 3');
  });

  it('Ask parley gives the model the message’s image too', async () => {
    const png = createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 200, green: 10, blue: 10 } });
    const file = bot.slack.addFile({ name: 'chart.png', bytes: png, mimetype: 'image/png' });
    const asked = bot.slack.addMessage({
      channel: 'C0SHORTC05',
      user: 'U0ADA00001',
      text: 'our chart',
      files: [file],
    });
    await bot.deliverInteraction(
      messageShortcut({ callbackId: 'parley_ask', channel: 'C0SHORTC05', messageTs: asked.ts }),
    );
    const opened = await bot.slack.waitFor(() => bot.slack.openedViews[0]);
    bot.gateway.enqueue({ text: 'A red square.' });
    await bot.deliverInteraction(
      viewSubmission({ view: opened.view, values: { question: 'What colour is it?' } }),
    );
    await finishedReplies(bot, 'C0SHORTC05', asked.ts);

    const body = chatRequests().at(-1)?.body as { model?: string; messages: Array<{ content: unknown }> };
    expect(body.model).toBe('vision-model');
    expect(JSON.stringify(body.messages.at(-1)?.content)).toContain('image_url');
    expect(bot.slack.fileDownloads.length).toBeGreaterThan(0);
  });

  it('Ask parley keeps the modal open when the question is empty', async () => {
    const asked = bot.slack.addMessage({ channel: 'C0SHORTC02', user: 'U0ADA00001', text: 'hello' });
    await bot.deliverInteraction(
      messageShortcut({ callbackId: 'parley_ask', channel: 'C0SHORTC02', messageTs: asked.ts }),
    );
    const opened = await bot.slack.waitFor(() => bot.slack.openedViews[0]);
    const submitted = (await bot.deliverInteraction(
      viewSubmission({ view: opened.view, values: { question: '' } }),
    )) as {
      body?: string;
    };

    expect(JSON.parse(submitted.body ?? '{}')).toEqual({
      response_action: 'errors',
      errors: { question: 'Write a question.' },
    });
    expect(chatRequests()).toHaveLength(0);
  });

  it('Summarize from here reads that message and the ones after it, and answers in its thread', async () => {
    bot.slack.addMessage({ channel: 'C0SHORTC03', user: 'U0ADA00001', text: 'Lunch at noon?' });
    const from = bot.slack.addMessage({
      channel: 'C0SHORTC03',
      user: 'U0BOB00001',
      text: 'The build failed on step 3',
    });
    bot.slack.addMessage({ channel: 'C0SHORTC03', user: 'U0ADA00001', text: 'A retry fixed it' });
    bot.gateway.enqueue({ text: JSON.stringify(summary) });

    await bot.deliverInteraction(
      messageShortcut({
        callbackId: 'parley_summarize_from_here',
        channel: 'C0SHORTC03',
        messageTs: from.ts,
      }),
    );
    const card = await bot.slack.waitFor(() =>
      botReplies(bot, 'C0SHORTC03', from.ts).find((message) =>
        JSON.stringify(message.blocks ?? []).includes('Step 3 failed'),
      ),
    );

    expect(card.threadTs).toBe(from.ts);
    const sent = JSON.stringify(chatRequests().at(-1)?.body);
    expect(sent).toContain('The build failed on step 3');
    expect(sent).toContain('A retry fixed it');
    expect(sent).not.toContain('Lunch at noon?');
  });

  it('Extract data pulls structured data out of the message’s text', async () => {
    const invoice = bot.slack.addMessage({
      channel: 'C0SHORTC04',
      user: 'U0ADA00001',
      text: 'Invoice 42: total $12.50',
    });
    bot.gateway.enqueue({ text: JSON.stringify(extraction) });

    await bot.deliverInteraction(
      messageShortcut({ callbackId: 'parley_extract', channel: 'C0SHORTC04', messageTs: invoice.ts }),
    );
    const card = await bot.slack.waitFor(() =>
      botReplies(bot, 'C0SHORTC04', invoice.ts).find((message) =>
        JSON.stringify(message.blocks ?? []).includes('$12.50'),
      ),
    );

    expect(card.threadTs).toBe(invoice.ts);
    expect(JSON.stringify(chatRequests().at(-1)?.body)).toContain('Invoice 42: total $12.50');
  });
});

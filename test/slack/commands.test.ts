import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { buttonClick, type HttpDelivery, slashCommand } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

type Block = {
  type: string;
  text?: { text: string };
  fields?: Array<{ text: string }>;
  elements?: Array<Record<string, unknown>>;
};

const summary = {
  title: 'Launch planning',
  tldr: 'We ship on Friday.',
  keyPoints: ['The release candidate is green', 'Docs need a pass'],
  decisions: ['Ship on Friday'],
  actionItems: [{ owner: 'Ada', task: 'Write the release notes', due: 'Thursday' }],
  openQuestions: [],
};

describe('slack over HTTP: slash commands (prefix "p-")', () => {
  let bot: SlackUnderTest;
  const imageRequests = () =>
    bot.gateway.requests.filter((request) => request.path.endsWith('/images/generations'));

  beforeAll(async () => {
    // Slack files are private, so Vary and --ref need an image model that takes data: URIs.
    bot = await startSlackUnderTest({
      mode: 'http',
      environment: { SLACK_COMMAND_PREFIX: 'p-', IMAGE_MODEL: 'data-uri-image-model' },
    });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('/p-imagine acks at once, shows progress, then uploads the images with their buttons', async () => {
    const delivery = (await bot.deliverCommand(
      slashCommand({
        command: '/p-imagine',
        text: 'a lighthouse at dawn --count 2 —ar 16:9',
        channel: 'C0IMAGINE1',
      }),
    )) as HttpDelivery;
    const buttons = await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0IMAGINE1')
        .find((message) => JSON.stringify(message.blocks ?? []).includes('Vary 2')),
    );

    expect(delivery.status).toBe(200);
    expect(delivery.body).toBe('');
    expect(delivery.durationMs).toBeLessThan(3_000);
    expect(imageRequests()[0]?.body as Record<string, unknown>).toMatchObject({ n: 2, aspect_ratio: '16:9' });
    expect(bot.slack.uploadedFiles.map((file) => [file.name, file.mimetype, file.channel])).toEqual([
      ['parley-a-lighthouse-at-dawn-1.png', 'image/png', 'C0IMAGINE1'],
      ['parley-a-lighthouse-at-dawn-2.png', 'image/png', 'C0IMAGINE1'],
    ]);
    // The comment names who asked, since Slack does not show the command to others.
    expect(bot.slack.uploadedFiles[0]?.initialComment).toMatch(
      /^<@U0PERSON01> used `\/p-imagine a lighthouse at dawn --count 2 —ar 16:9`\n\*a lighthouse at dawn\*/,
    );
    const labels = (buttons.blocks?.[0] as Block | undefined)?.elements?.map(
      (element) => (element.text as { text: string }).text,
    );
    expect(labels).toEqual(['Regenerate', 'Vary 1', 'Vary 2']);
    // The progress line was posted, then removed once the images were there.
    expect(bot.slack.callsTo('chat.postMessage')[0]?.arguments.text).toMatch(/drawing 2 images/);
    expect(bot.slack.callsTo('chat.delete')).toHaveLength(1);
    // The images, then their buttons: Slack shares an upload a moment after completing it, so the
    // buttons wait until files.info lists the share.
    expect(bot.slack.messages('C0IMAGINE1').map((message) => message.files?.length ?? 0)).toEqual([2, 0]);
    expect(bot.slack.callsTo('files.info').length).toBeGreaterThan(0);
  });

  it('a Vary click draws again from that image (kept, sent as a data: URI), in the same channel', async () => {
    await bot.deliverCommand(slashCommand({ command: '/p-imagine', text: 'a fox', channel: 'C0IMAGINE2' }));
    const buttons = await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0IMAGINE2')
        .find((message) => JSON.stringify(message.blocks ?? []).includes('Vary')),
    );
    const vary = (buttons.blocks?.[0] as Block | undefined)?.elements?.[1] as { action_id: string };

    await bot.deliverInteraction(
      buttonClick({ actionId: vary.action_id, messageTs: buttons.ts, channel: 'C0IMAGINE2' }),
    );
    await bot.slack.waitFor(() => bot.slack.uploadedFiles[1]);

    const [, varied] = imageRequests();
    const drawn = bot.slack.uploadedFiles[0]?.bytes.toString('base64');
    expect((varied?.body as { image_input?: string[] } | undefined)?.image_input).toEqual([
      `data:image/png;base64,${drawn}`,
    ]);
    expect(bot.slack.uploadedFiles[1]?.channel).toBe('C0IMAGINE2');
    expect(bot.slack.uploadedFiles[1]?.threadTs).toBeUndefined();
  });

  it('--ref takes the most recent image shared in the channel', async () => {
    const png = createSolidPng({ widthPx: 2, heightPx: 2, colour: { red: 1, green: 2, blue: 3 } });
    const file = bot.slack.addFile({ name: 'sketch.png', bytes: png });
    bot.slack.addMessage({ channel: 'C0IMAGINE3', user: 'U0PERSON01', text: 'my sketch', files: [file] });
    bot.slack.addMessage({ channel: 'C0IMAGINE3', user: 'U0PERSON02', text: 'nice' });

    await bot.deliverCommand(
      slashCommand({ command: '/p-imagine', text: '--ref a castle like this', channel: 'C0IMAGINE3' }),
    );
    await bot.slack.waitFor(() => bot.slack.uploadedFiles[0]);

    const request = imageRequests()[0]?.body as { prompt: string; image_input?: string[] };
    expect(request.prompt).toBe('a castle like this');
    expect(request.image_input).toEqual([`data:image/png;base64,${png.toString('base64')}`]);
    expect(bot.slack.fileDownloads).toMatchObject([{ fileId: file.id, isAuthorized: true }]);
  });

  it('--ref with no image in the channel says so privately, without drawing', async () => {
    await bot.deliverCommand(
      slashCommand({ command: '/p-imagine', text: 'a castle --ref', channel: 'C0IMAGINE4' }),
    );
    const notice = await bot.slack.waitFor(() =>
      bot.slack.ephemeralMessages.find((message) => message.channel === 'C0IMAGINE4'),
    );

    expect(notice?.text).toMatch(/^⚠ I found no image in the last 20 messages here/);
    expect(imageRequests()).toEqual([]);
  });

  it('/p-summarize reads the channel and answers with a Block Kit card', async () => {
    for (const [user, text] of [
      ['U0ADA00001', 'Shall we ship on Friday?'],
      ['U0BOB00001', 'Yes, <@U0ADA00001> writes the notes by Thursday'],
    ] as const) {
      bot.slack.addMessage({ channel: 'C0SUMMARY1', user, text });
    }
    bot.gateway.enqueue({ text: JSON.stringify(summary) });

    await bot.deliverCommand(
      slashCommand({ command: '/p-summarize', text: 'decisions', channel: 'C0SUMMARY1' }),
    );
    const card = await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0SUMMARY1')
        .find((message) => JSON.stringify(message.blocks ?? []).includes('header')),
    );

    const blocks = card.blocks as Block[];
    expect(blocks.map((block) => block.type)).toEqual([
      'context',
      'header',
      'section',
      'section',
      'section',
      'section',
      'context',
    ]);
    expect(blocks[0]?.elements?.[0]).toMatchObject({ text: '<@U0PERSON01> used `/p-summarize decisions`' });
    expect(blocks[1]?.text?.text).toBe('Launch planning');
    expect(blocks[2]?.text?.text).toBe('*TL;DR* We ship on Friday.');
    expect(blocks[3]?.text?.text).toBe('*Key points*\n• The release candidate is green\n• Docs need a pass');
    expect(blocks[5]?.text?.text).toBe('*Action items*\n• *Ada*: Write the release notes _(due Thursday)_');
    // The transcript had names, not ids, and the progress line became the card.
    const prompt = JSON.stringify(bot.gateway.requests[0]?.body);
    expect(prompt).toContain('user-u0bob00001: Yes, @user-u0ada00001 writes the notes by Thursday');
    expect(bot.slack.messages('C0SUMMARY1').filter((message) => message.botId)).toHaveLength(1);
  });

  it('answers privately through the response_url: /p-help, a bad option, a refused /p-model', async () => {
    const commands = [
      ['/p-help', ''],
      ['/p-imagine', 'x --count 9'],
      ['/p-model', 'vision-model'],
    ] as const;
    for (const [index, [command, text]] of commands.entries()) {
      await bot.deliverCommand(slashCommand({ command, text, channel: 'C0PRIVATE1' }));
      await bot.slack.waitFor(() => bot.slack.ephemeralMessages.length >= index + 1);
    }

    // /help is one answer: what is particular to this workspace first, then the commands.
    const [help, ...texts] = bot.slack.ephemeralMessages.map((message) => message.text);
    expect(help).toMatch(/^In this workspace my commands start with `\/p-`: `\/p-chat`, `\/p-imagine`/);
    expect(help).toContain('`/imagine &lt;prompt&gt;');
    const helpShown = (bot.slack.ephemeralMessages[0]?.blocks ?? []) as Array<{
      type: string;
      text?: string;
    }>;
    expect(helpShown[0]?.type).toBe('markdown');
    expect(helpShown[0]?.text).toContain('Default model:');
    expect(texts[0]).toBe(
      '⚠ --count must be a whole number from 1 to 4.\nUsage: `/imagine &lt;prompt&gt; [--count 1–4] [--aspect-ratio 1:1|16:9|9:16|4:3|3:4|3:2|2:3|21:9] [--format png|jpg] [--reference image]`',
    );
    expect(texts[1]).toBe('Only admins can change the model here.');
    expect(bot.slack.ephemeralMessages.every((message) => message.source === 'response_url')).toBe(true);
    expect(bot.slack.messages('C0PRIVATE1')).toEqual([]);
  });

  it('/p-chat streams its answer into the channel', async () => {
    bot.gateway.enqueue({ text: 'Forty-two.' });
    await bot.deliverCommand(
      slashCommand({ command: '/p-chat', text: 'the answer?', channel: 'C0CHATCMD1' }),
    );
    const reply = await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0CHATCMD1')
        .find((message) => JSON.stringify(message.blocks ?? []).includes('Regenerate')),
    );

    expect(reply.blocks?.[0]).toEqual({ type: 'markdown', text: 'Forty-two.' });
    expect(reply.threadTs).toBeUndefined();
  });
});

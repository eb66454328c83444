import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSolidPng } from '../fakes/gateway/index.ts';
import {
  appMention,
  botMessage,
  buttonClick,
  channelMessage,
  directMessage,
  threadReply,
} from '../fakes/slack/index.ts';
import { lastUserContent } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

describe('slack over HTTP: chat with native streaming', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    // The status goes up at once here, as these cases check it; thinking-status.test.ts checks its delay.
    bot = await startSlackUnderTest({ mode: 'http', stopButtonDelayMs: 500, thinkingStatusDelayMs: 0 });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('answers a signed mention in a thread under it, streamed natively, with the exact text', async () => {
    const reply = '**Tides** come from the Moon.\n\n```ts\nconst moon = true;\n```\n\nThat is all.';
    // About 3 s, so that the stream takes several appends at the native pace (editIntervals).
    bot.gateway.enqueue({ text: reply, chunkSize: 6, delayBetweenChunksMs: 200 });
    const mention = appMention({ channel: 'C0TIDES001', text: 'why are there tides?', user: 'U0ADA00001' });

    const delivery = await bot.deliverEvent(mention);
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect(delivery.status).toBe(200);
    expect(stream).toMatchObject({
      channel: 'C0TIDES001',
      threadTs: mention.ts,
      recipientTeamId: bot.slack.workspace.teamId,
      recipientUserId: 'U0ADA00001',
      text: reply,
    });
    // The stream only grows, in several writes; the fence delivery adds to close the open code block
    // while it streams is held back rather than streamed and then contradicted.
    expect(stream.writes.length).toBeGreaterThan(2);
    expect(stream.writes.map((write) => write.markdownText).join('')).toBe(reply);
    expect(bot.slack.messages('C0TIDES001', String(mention.ts))).toMatchObject([
      { ts: stream.ts, text: reply, streamingState: 'completed' },
    ]);
    // Regenerate goes under the finished reply, and 👍/👎 (plain buttons in a stream's last write:
    // chat.stopStream takes the actions block that Regenerate rides in).
    const buttons = (stream.blocks as Array<{ elements: Array<{ text: { text: string } }> }>)[0]?.elements;
    expect(buttons?.map((button) => button.text.text)).toEqual(['Regenerate', '👍', '👎']);
    expect(bot.slack.callsTo('chat.update')).toEqual([]);
    // The mention is gone and the asker is named.
    expect(lastUserContent(bot)).toBe('user-u0ada00001: why are there tides?');
    expect(bot.slack.callsTo('assistant.threads.setStatus')[0]?.arguments).toMatchObject({
      channel_id: 'C0TIDES001',
      thread_ts: mention.ts,
      status: 'is thinking…',
    });
  });

  it('offers a slow stream a private Stop button, which ends it with the text so far', async () => {
    bot.gateway.enqueue({ text: 'tick '.repeat(200), chunkSize: 5, delayBetweenChunksMs: 100 });
    const mention = appMention({ channel: 'C0STOPPED2', text: 'count', user: 'U0ADA00001' });
    await bot.deliverEvent(mention);
    const prompt = await bot.slack.waitFor(() => bot.slack.ephemeralMessages[0]);

    // A streaming message cannot carry buttons, so only the asker sees Stop, privately.
    expect(prompt).toMatchObject({ channel: 'C0STOPPED2', user: 'U0ADA00001', threadTs: mention.ts });
    const stop = (prompt.blocks?.[1] as { elements?: Array<{ action_id: string }> } | undefined)
      ?.elements?.[0];
    const click = buttonClick({
      actionId: stop?.action_id ?? '',
      messageTs: '1.000001',
      channel: 'C0STOPPED2',
      user: 'U0ADA00001',
    });
    await bot.slack.deliverInteraction({
      payload: { ...click, container: { ...(click.container as object), is_ephemeral: true } },
    });
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect(stream.text).toMatch(/^(tick )+\n\n_⚠ reply cut off: Stopped\._$/);
    expect(stream.text.length).toBeLessThan(400);
    expect(bot.slack.responseUrlPosts[0]?.body).toEqual({ delete_original: true });
  });

  it('rolls a long streamed reply over into more messages, each showing exactly its part', async () => {
    const paragraph = `${'word '.repeat(199)}end.`;
    const reply = Array.from({ length: 24 }, () => paragraph).join('\n\n');
    bot.gateway.enqueue({ text: reply, chunkSize: 400, delayBetweenChunksMs: 25 });
    const mention = appMention({ channel: 'C0LONGSTRM', text: 'write a lot' });

    await bot.deliverEvent(mention);
    const messages = await bot.slack.waitFor(() => {
      const all = bot.slack.messages('C0LONGSTRM', String(mention.ts));
      return all.length >= 3 && JSON.stringify(all.at(-1)?.blocks ?? []).includes('Regenerate')
        ? all
        : undefined;
    }, 10_000);
    // Messages that rolled over end their streams once their last edit has had time to arrive.
    await bot.slack.waitFor(() => bot.slack.streams.every((stream) => stream.state === 'stopped'));

    const shown = messages.map((message) => {
      const block = message.blocks?.[0] as { type?: string; text?: string } | undefined;
      return block?.type === 'markdown' ? block.text : message.text;
    });
    expect(shown.every((text) => (text?.length ?? 0) <= 10_000)).toBe(true);
    expect(shown.join('')).toBe(reply);
  });

  it('follows a thread it answered without a mention, and ignores top-level chatter', async () => {
    bot.gateway.enqueue({ text: 'First answer.' });
    const mention = appMention({ channel: 'C0THREAD01', text: 'hello' });
    await bot.deliverEvent(mention);
    await bot.slack.waitFor(() => bot.slack.streams.find((entry) => entry.state === 'stopped'));

    await bot.deliverEvent(channelMessage({ channel: 'C0THREAD01', text: 'unrelated chatter' }));
    bot.gateway.enqueue({ text: 'Second answer.' });
    await bot.deliverEvent(
      threadReply({ channel: 'C0THREAD01', threadTs: String(mention.ts), text: 'and <@U0BOB00001>?' }),
    );
    await bot.slack.waitFor(() => bot.slack.streams.filter((entry) => entry.state === 'stopped')[1]);

    expect(bot.slack.streams.map((stream) => stream.text)).toEqual(['First answer.', 'Second answer.']);
    expect(bot.slack.streams.every((stream) => stream.threadTs === mention.ts)).toBe(true);
    expect(lastUserContent(bot)).toBe('user-u0person01: and @user-u0bob00001?');
    const chats = bot.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));
    expect(chats).toHaveLength(2);
  });

  it('answers a DM at the top of the conversation', async () => {
    bot.gateway.enqueue({ text: 'Hi in private.' });
    await bot.deliverEvent(directMessage({ channel: 'D0DIRECT01', text: 'psst' }));
    const reply = await bot.slack.waitFor(() =>
      bot.slack
        .messages('D0DIRECT01')
        .find((message) => JSON.stringify(message.blocks ?? []).includes('Regenerate')),
    );

    // No thread in a DM, so no native stream: one markdown block, rewritten by chat.update.
    expect(reply.threadTs).toBeUndefined();
    expect(reply.blocks?.[0]).toEqual({ type: 'markdown', text: 'Hi in private.' });
    expect(bot.slack.callsTo('chat.startStream')).toEqual([]);
  });

  it('ignores its own messages and other bots', async () => {
    await bot.deliverEvent(
      botMessage({ channel: 'D0DIRECT02', text: 'echo', botId: bot.slack.workspace.botId }),
    );
    await bot.deliverEvent(botMessage({ channel: 'D0DIRECT02', text: 'beep', botId: 'B0OTHERBOT' }));
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(bot.gateway.requests).toEqual([]);
    expect(bot.slack.callsTo('chat.postMessage')).toEqual([]);
  });

  it('answers 401 to a forged signature or a timestamp over 5 minutes away, and never replies', async () => {
    const nowSec = Math.floor(Date.now() / 1000);
    const forged = await bot.deliverEvent(appMention({ channel: 'C0EVIL0001', text: 'evil' }), {
      forgeSignature: true,
    });
    const stale = await bot.deliverEvent(appMention({ channel: 'C0EVIL0001', text: 'replayed' }), {
      timestampSec: nowSec - 6 * 60,
    });
    // Correctly signed, but dated 10 minutes ahead: Bolt checks only the past.
    const future = await bot.deliverEvent(appMention({ channel: 'C0EVIL0001', text: 'from the future' }), {
      timestampSec: nowSec + 10 * 60,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect([forged.status, stale.status, future.status]).toEqual([401, 401, 401]);
    expect(bot.gateway.requests).toEqual([]);
    expect(bot.slack.streams).toEqual([]);
  });

  it('answers an event Slack delivers twice (X-Slack-Retry-Num, same event_id) once', async () => {
    bot.gateway.setDefault({ text: 'Only once.', delayBetweenChunksMs: 50 });
    const mention = appMention({ channel: 'C0RETRY001', text: 'are you there?' });

    await bot.deliverEvent(mention, { eventId: 'Ev0RETRIED01' });
    await bot.deliverEvent(mention, { eventId: 'Ev0RETRIED01', retryNum: 1, retryReason: 'http_timeout' });
    // The same message as a `message` event (another event id) is not answered again either.
    await bot.deliverEvent(
      { ...mention, type: 'message', channel_type: 'channel' },
      { eventId: 'Ev0RETRIED02' },
    );
    await bot.slack.waitFor(() => bot.slack.streams.find((entry) => entry.state === 'stopped'));
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(bot.slack.streams).toHaveLength(1);
    expect(bot.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(
      1,
    );
  });

  it('sends a shared image, downloaded with the bot token, to the vision model as a data: URI', async () => {
    const png = createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 200, green: 10, blue: 10 } });
    const file = bot.slack.addFile({ name: 'screenshot.png', bytes: png });
    bot.gateway.enqueue({ text: 'A red square.' });

    await bot.deliverEvent(appMention({ channel: 'C0VISION01', text: 'what is this?', files: [file] }));
    await bot.slack.waitFor(() => bot.slack.streams.find((entry) => entry.state === 'stopped'));

    expect(bot.slack.fileDownloads).toMatchObject([{ fileId: file.id, isAuthorized: true }]);
    const chat = bot.gateway.requests.find((request) => request.path.endsWith('/chat/completions'));
    expect((chat?.body as { model?: string } | undefined)?.model).toBe('vision-model');
    const content = lastUserContent(bot) as Array<{ type: string; image_url?: { url: string } }>;
    expect(content[1]?.image_url?.url).toMatch(/^data:image\/png;base64,/);
    expect(bot.slack.streams[0]?.text).toBe('A red square.');
  });

  it('reads a shared text file into the message, and names a file it cannot read', async () => {
    const notes = bot.slack.addFile({ name: 'notes.txt', bytes: Buffer.from('buy milk\ncall Ada') });
    const archive = bot.slack.addFile({
      name: 'backup.zip',
      // An empty zip (just its end-of-central-directory record): binary, so not read as text.
      bytes: Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000')),
      mimetype: 'application/zip',
    });
    bot.gateway.enqueue({ text: 'Two things to do.' });

    await bot.deliverEvent(appMention({ channel: 'C0FILES001', text: 'summarize', files: [notes, archive] }));
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect(lastUserContent(bot)).toBe(
      'user-u0person01: summarize\n\n<document name="notes.txt" type="text file">\nbuy milk\ncall Ada\n</document>',
    );
    expect(stream.text).toBe(
      'Two things to do.\n\n_I cannot read backup.zip: I read PDF, Word (.docx), Excel (.xlsx), CSV and text files. I left it out._',
    );
  });

  it('says clearly when Slack answers a download with its sign-in page (no files:read)', async () => {
    const png = createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 0, green: 0, blue: 0 } });
    const file = bot.slack.addFile({ name: 'secret.png', bytes: png });
    // Without files:read Slack redirects to its sign-in page, like a request without the token.
    const signIn = {
      ...file,
      url_private_download: `${bot.slack.origin}/?redir=${encodeURIComponent(file.url_private)}`,
    };
    bot.gateway.enqueue({ text: 'I cannot see it.' });

    await bot.deliverEvent(appMention({ channel: 'C0VISION02', text: 'look', files: [signIn] }));
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect(stream.text).toContain('I cannot see it.');
    expect(stream.text).toContain('files:read');
    expect(stream.text).toMatch(/_I could not read secret\.png: Slack sent its sign-in page .*files:read.*_/);
  });
});

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { slackFileHeaders } from '../../adapters/slack/slack-files.ts';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { appMention } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { type InternalTarget, startInternalTarget } from './internal-target.ts';

const png = createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 10, green: 200, blue: 10 } });

describe('the Slack bot token goes only to Slack', () => {
  const token = 'xoxb-1111-2222-abcdefabcdef';
  const headersFor = slackFileHeaders({ botToken: token, apiUrl: 'http://127.0.0.1:4321/api/' });
  const authorizationFor = (url: string) => headersFor(new URL(url)).Authorization;

  it('sends it to Slack’s hosts over https and to the configured API origin', () => {
    expect(authorizationFor('https://files.slack.com/files-pri/T1-F1/a.png')).toBe(`Bearer ${token}`);
    expect(authorizationFor('https://files-origin.slack.com/files-pri/T1-F1/a.png')).toBe(`Bearer ${token}`);
    expect(authorizationFor('https://files.slack-gov.com/files-pri/T1-F1/a.png')).toBe(`Bearer ${token}`);
    expect(authorizationFor('http://127.0.0.1:4321/files-pri/T1-F1/a.png')).toBe(`Bearer ${token}`);
  });

  it('never to another host, a look-alike, plain http, or another port', () => {
    for (const url of [
      'https://example.test/a.png',
      'https://files.slack.com.example.test/a.png',
      'https://notslack.com/a.png',
      'http://files.slack.com/files-pri/T1-F1/a.png',
      'http://127.0.0.1:4322/files-pri/T1-F1/a.png',
    ]) {
      expect(authorizationFor(url), url).toBeUndefined();
    }
  });

  it('never doubles the scheme', () => {
    const headers = slackFileHeaders({ botToken: `Bearer ${token}`, apiUrl: 'https://slack.com/api/' });
    expect(headers(new URL('https://files.slack.com/x')).Authorization).toBe(`Bearer ${token}`);
  });
});

describe('Slack file downloads through the real adapter', () => {
  let bot: SlackUnderTest;
  let internal: InternalTarget;

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http' });
    internal = await startInternalTarget();
  });
  beforeEach(() => bot.reset());
  afterEach(() => {
    expect(internal.connectionCount).toBe(0);
  });
  afterAll(async () => {
    await bot.close();
    await internal.close();
  });

  const finishedStream = () =>
    bot.slack.waitFor(() => bot.slack.streams.find((entry) => entry.state === 'stopped'));
  const lastImageParts = () => {
    const chat = bot.gateway.requests.filter((request) => request.path.endsWith('/chat/completions')).at(-1);
    const content = (chat?.body as { messages: Array<{ content: unknown }> } | undefined)?.messages.at(
      -1,
    )?.content;
    return Array.isArray(content) ? content.filter((part) => part.type === 'image_url') : [];
  };

  it('follows a redirect between Slack file hosts itself, keeping the token for the second host', async () => {
    const file = bot.slack.addFile({ name: 'moved.png', bytes: png, redirect: 'another-slack-host' });
    bot.gateway.enqueue({ text: 'A green square.' });

    await bot.deliverEvent(appMention({ channel: 'C0FILES101', text: 'what is it?', files: [file] }));
    const stream = await finishedStream();

    expect(
      bot.slack.fileDownloads.map(({ host, isAuthorized, authorization }) => ({
        host,
        isAuthorized,
        authorization,
      })),
    ).toEqual([
      { host: 'files-pri', isAuthorized: true, authorization: `Bearer ${bot.slack.botToken}` },
      { host: 'files-origin', isAuthorized: true, authorization: `Bearer ${bot.slack.botToken}` },
    ]);
    expect(lastImageParts()).toHaveLength(1);
    expect(stream.text).toBe('A green square.');
  });

  it('does not send the token to an external file’s host, nor fetch it from inside the network', async () => {
    const file = bot.slack.addFile({ name: 'external.png', bytes: png, linkTo: `${internal.origin}/steal` });
    bot.gateway.enqueue({ text: 'No image.' });

    await bot.deliverEvent(appMention({ channel: 'C0FILES102', text: 'look', files: [file] }));
    const stream = await finishedStream();

    expect(internal.requests).toEqual([]);
    expect(stream.text).toContain(
      'I did not download external.png: its link points to a private network address, so I left it out.',
    );
    expect(lastImageParts()).toEqual([]);
  });

  it('refuses a redirect away from Slack without calling it a missing scope', async () => {
    const file = bot.slack.addFile({
      name: 'away.png',
      bytes: png,
      redirect: { to: `${internal.origin}/collect` },
    });
    bot.gateway.enqueue({ text: 'Still no image.' });

    await bot.deliverEvent(appMention({ channel: 'C0FILES103', text: 'and this', files: [file] }));
    const stream = await finishedStream();

    expect(bot.slack.fileDownloads).toMatchObject([{ host: 'files-pri', isAuthorized: true }]);
    expect(stream.text).toContain(
      'I did not download away.png: its link points to a private network address',
    );
    expect(stream.text).not.toContain('files:read');
  });
});

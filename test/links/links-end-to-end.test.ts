import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { appMention } from '../fakes/slack/index.ts';
import { type FakeWeb, startFakeWeb } from '../fakes/web/fake-web.ts';
import { startSlackUnderTest } from '../slack/slack-under-test.ts';
import { startConsoleUnderTest } from '../support/console-under-test.ts';
import { startDiscordUnderTest } from '../support/discord-under-test.ts';
import { createTextPdf } from '../support/sample-documents.ts';

let web: FakeWeb;
let otherSite: FakeWeb;
beforeAll(async () => {
  [web, otherSite] = await Promise.all([startFakeWeb(), startFakeWeb()]);
});
afterAll(async () => {
  await Promise.all([web.close(), otherSite.close()]);
});
afterEach(() => {
  web.reset();
  otherSite.reset();
});

const article = `<!doctype html><html><head><title>Tides explained</title></head><body>
<nav>Home | About | Contact</nav>
<article><h1>Tides explained</h1>
${'<p>The Moon pulls the oceans towards it, which raises a bulge of water on the near side of the Earth. </p>'.repeat(6)}
<p>There are two high tides a day.</p></article><footer>© Tide Times</footer></body></html>`;

type ChatBody = { model: string; messages: Array<{ role: string; content: unknown }> };
const lastUserText = (bodies: unknown[]) =>
  JSON.stringify((bodies.at(-1) as ChatBody | undefined)?.messages.at(-1)?.content ?? '');

describe('links in messages', () => {
  it('in the terminal: reads a web page into the context, with its title and link, as parley', async () => {
    const bot = await startConsoleUnderTest({ LINK_PRIVATE_ORIGINS: web.origin });
    web.setPage('/tides', { body: article });
    web.setRobots('User-agent: *\nDisallow: /private\n');
    bot.fake.enqueue({ text: 'Two high tides a day (Tides explained).' });
    const printed = await bot.type(`why tides? ${web.origin}/tides`);
    await bot.close();

    expect(printed).toContain('Two high tides a day (Tides explained).');
    const asked = lastUserText(bot.fake.requests.map((request) => request.body));
    const host = new URL(web.origin).host;
    expect(asked).toContain(
      `<document name=\\"${host}/tides\\" type=\\"web page\\" title=\\"Tides explained\\" url=\\"${web.origin}/tides\\">`,
    );
    expect(asked).toContain('There are two high tides a day.');
    expect(asked).not.toContain('Home | About');
    const pageRequest = web.requests.find((request) => request.path === '/tides');
    expect(pageRequest?.headers['user-agent']).toMatch(/^parley\/0\.1 /);
    expect(web.requests.map((request) => request.path)).toEqual(['/robots.txt', '/tides']);
  });

  it('in the terminal: respects robots.txt, refuses private addresses, and reads only the start of a 50 MB page', async () => {
    const bot = await startConsoleUnderTest({
      LINK_PRIVATE_ORIGINS: web.origin,
      LINK_MAX_BYTES: String(256 * 1024),
    });
    web.setRobots('User-agent: parley\nDisallow: /private\n');
    web.setPage('/private/notes', { body: article });
    web.setPage('/huge', { streamedBytes: 50 * 1024 * 1024 });
    otherSite.setPage('/', { body: article });
    bot.fake.enqueue({ text: 'Done.' });
    const printed = await bot.type(`${web.origin}/private/notes ${otherSite.origin}/ ${web.origin}/huge`);
    await bot.close();

    const host = new URL(web.origin).host;
    expect(printed).toContain(
      `I did not read ${host}/private/notes: the site's robots.txt asks bots like me not to.`,
    );
    expect(printed).toContain(
      `I did not read ${new URL(otherSite.origin).host}: its link points to a private network address.`,
    );
    expect(printed).toContain(
      `${host}/huge is longer than the 256 KB I read of a page, so I read only its start.`,
    );
    expect(otherSite.requests).toEqual([]);
    expect(web.requests.map((request) => request.path)).not.toContain('/private/notes');
    expect(lastUserText(bot.fake.requests.map((request) => request.body))).toContain('padding');
  });

  it('on Discord: a PDF link goes through the document reader, an image link to the vision model', async () => {
    const under = await startDiscordUnderTest({ LINK_PRIVATE_ORIGINS: web.origin });
    web.setPage('/report.pdf', {
      contentType: 'application/pdf',
      body: await createTextPdf([['Total: 77']]),
    });
    web.setPage('/chart.png', {
      contentType: 'image/png',
      body: createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 9, green: 9, blue: 9 } }),
    });
    const channel = under.discord.textChannelIds[0] ?? '';
    under.discord.sendUserMessage({
      channelId: channel,
      content: `compare ${web.origin}/report.pdf with ${web.origin}/chart.png`,
      mentionsBot: true,
    });
    const body = (
      await under.discord.waitFor(() =>
        under.gateway.requests.find((request) => request.path.endsWith('/chat/completions')),
      )
    ).body as ChatBody;
    await under.close();
    expect(body.model).toBe('vision-model');
    const asked = JSON.stringify(body.messages.at(-1)?.content);
    expect(asked).toContain('[p. 1]\\nTotal: 77');
    expect(asked).toContain('data:image/png;base64,');
  });

  it('on Discord with LINK_READING=mention-only: in a thread it follows, links are read only when mentioned', async () => {
    web.setPage('/tides', { body: article });
    const under = await startDiscordUnderTest({
      LINK_PRIVATE_ORIGINS: web.origin,
      LINK_READING: 'mention-only',
    });
    const thread = under.discord.threadId;
    const chats = () =>
      under.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));
    under.discord.sendUserMessage({ channelId: thread, content: 'hello', mentionsBot: true });
    await under.discord.waitFor(() => chats()[0]);
    under.discord.sendUserMessage({ channelId: thread, content: `talking about ${web.origin}/tides` });
    await under.discord.waitFor(() => chats()[1]);
    under.discord.sendUserMessage({
      channelId: thread,
      content: `read ${web.origin}/tides`,
      mentionsBot: true,
    });
    await under.discord.waitFor(() => chats()[2]);
    await under.close();
    const [, unmentioned, mentioned] = chats().map((request) =>
      JSON.stringify((request.body as ChatBody).messages.at(-1)?.content),
    );
    expect(unmentioned).toContain('talking about');
    expect(unmentioned).not.toContain('<document');
    expect(mentioned).toContain('There are two high tides a day.');
  });

  it('on Slack: a link in a mention is read; with LINK_READING=off it is not', async () => {
    web.setPage('/tides', { body: article });
    for (const mode of ['on', 'off'] as const) {
      const bot = await startSlackUnderTest({
        mode: 'http',
        environment: { LINK_PRIVATE_ORIGINS: web.origin, LINK_READING: mode },
      });
      await bot.deliverEvent(
        appMention({ channel: 'C0LINKS001', text: `what is <${web.origin}/tides|this>?` }),
      );
      await bot.slack.waitFor(() => bot.slack.streams.find((entry) => entry.state === 'stopped'));
      const asked = lastUserText(bot.gateway.requests.map((request) => request.body));
      await bot.close();
      if (mode === 'on') expect(asked).toContain('There are two high tides a day.');
      else expect(asked).not.toContain('<document');
    }
    expect(web.requests.filter((request) => request.path === '/tides')).toHaveLength(1);
  });
});

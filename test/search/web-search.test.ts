import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keyv } from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentReader } from '../../src/documents/document-reader.ts';
import { createDocumentStore } from '../../src/documents/document-store.ts';
import { createLinkReader } from '../../src/links/link-reader.ts';
import { modelFetchPolicy } from '../../src/net/url-policy.ts';
import { createReadPage } from '../../src/search/read-page.ts';
import { searchInstructions } from '../../src/search/search-tools.ts';
import { type FakeSearxng, startFakeSearxng } from '../fakes/searxng/fake-searxng.ts';
import { appMention } from '../fakes/slack/index.ts';
import { type FakeWeb, startFakeWeb } from '../fakes/web/fake-web.ts';
import { startSlackUnderTest } from '../slack/slack-under-test.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { startConsoleUnderTest } from '../support/console-under-test.ts';
import { startDiscordUnderTest } from '../support/discord-under-test.ts';

let searxng: FakeSearxng;
let web: FakeWeb;
beforeAll(async () => {
  [searxng, web] = await Promise.all([startFakeSearxng(), startFakeWeb()]);
});
afterAll(async () => {
  await Promise.all([searxng.close(), web.close()]);
});
afterEach(() => {
  searxng.reset();
  web.reset();
});

type WireMessage = { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string };
type ChatBody = { model: string; tools?: Array<{ function: { name: string } }>; messages: WireMessage[] };

const tideResults = [
  {
    url: 'https://tides.example/brest',
    title: 'Tide times Brest',
    content: 'High tide 14:05, low tide 20:17.',
  },
  { url: 'https://weather.example/brest', title: 'Brest weather', content: 'Sunny, 18 °C.' },
];

describe('web search with sources', () => {
  it('a model with tools searches, reads the results, and answers with numbered sources as links', async () => {
    const bot = await startConsoleUnderTest({ SEARCH_URL: searxng.url, CHAT_MODEL: 'tools-model' });
    searxng.setResults('high tide Brest today', tideResults);
    bot.fake.enqueue({ toolCalls: [{ name: 'web_search', arguments: { query: 'high tide Brest today' } }] });
    bot.fake.enqueue({ text: 'High tide in Brest is at 14:05 today [1].' });
    const printed = await bot.type('when is high tide in Brest?');
    const usage = await bot.services.usage.report({
      userId: 'ada',
      conversationKey: 'console:local:ada',
      at: new Date(),
    });
    await bot.close();

    expect(printed).toContain(
      'High tide in Brest is at 14:05 today [1].\n\n**Sources**\n1. [Tide times Brest](https://tides.example/brest)',
    );
    expect(searxng.queries).toEqual(['high tide Brest today']);
    const [first, second] = bot.fake.requests.map((request) => request.body as ChatBody);
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual(['web_search', 'read_url']);
    expect(String(first?.messages[0]?.content)).toContain(searchInstructions);
    const toolMessage = second?.messages.at(-1);
    expect(second?.messages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ function: { name: 'web_search' } }],
    });
    expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: expect.stringMatching(/^call_/) });
    expect(String(toolMessage?.content)).toContain(
      '[1] Tide times Brest\nhttps://tides.example/brest\nHigh tide 14:05',
    );
    // Both model calls are counted, the tool round included.
    expect(usage.user.today.requests).toBe(2);
  });

  it('read_url keeps to public addresses: a private origin people may link to is refused to the model, and never asked', async () => {
    const bot = await startConsoleUnderTest({
      SEARCH_URL: searxng.url,
      CHAT_MODEL: 'tools-model',
      LINK_PRIVATE_ORIGINS: web.origin,
    });
    web.setPage('/menu', {
      body: '<html><head><title>Café menu</title></head><body><p>Soup of the day: leek.</p></body></html>',
    });
    const port = new URL(web.origin).port;
    // What a prompt injection in a search result would ask for: the intranet page, by address and by name.
    bot.fake.enqueue({
      toolCalls: [
        { name: 'read_url', arguments: { url: `${web.origin}/menu` } },
        { name: 'read_url', arguments: { url: `http://localhost:${port}/menu` } },
      ],
    });
    bot.fake.enqueue({ text: 'I could not read that page.' });
    const printed = await bot.type('what soup is on?');
    expect(printed).toContain('I could not read that page.');
    expect(printed).not.toContain('Sources');
    const toolMessages = ((bot.fake.requests[1]?.body as ChatBody | undefined)?.messages ?? []).filter(
      (message) => message.role === 'tool',
    );
    // Each result reaches the model wrapped as data from outside, marked as an error.
    expect(toolMessages.map((message) => message.content)).toEqual([
      `<tool_result tool="read_url" source="built-in" status="error">\nCould not read the page: I did not read ${new URL(web.origin).host}/menu: its link points to a private network address.\n</tool_result>`,
      `<tool_result tool="read_url" source="built-in" status="error">\nCould not read the page: I did not read localhost:${port}/menu: its link points to a private network address.\n</tool_result>`,
    ]);
    // Not even its robots.txt was asked for.
    expect(web.requests).toEqual([]);

    // The same page, posted by a person: LINK_PRIVATE_ORIGINS lets people's links in.
    bot.fake.enqueue({ text: 'Leek soup.' });
    const answer = await bot.type(`what soup is on? ${web.origin}/menu`);
    await bot.close();
    expect(answer).toContain('Leek soup.');
    expect(web.requests.map((request) => request.path)).toEqual(['/robots.txt', '/menu']);
    expect(JSON.stringify(bot.fake.requests.at(-1)?.body)).toContain('Soup of the day: leek.');
  });

  it('read_url reads a page through the link reader and the document reader', async () => {
    const { links, documents } = linkAndDocumentReaders();
    web.setPage('/menu', {
      body: '<html><head><title>Café menu</title></head><body><p>Soup of the day: leek.</p></body></html>',
    });
    // The fake site is on loopback, which the model's policy refuses; here it stands for a public site.
    const standingForPublic = { ...modelFetchPolicy, trustedOrigins: [web.origin] };
    const readPage = createReadPage({ links, documents, policy: standingForPublic });
    expect(await readPage({ url: `${web.origin}/menu` })).toEqual({
      title: 'Café menu',
      text: expect.stringContaining('Soup of the day: leek.'),
    });
    // And with the model's own policy, the same page is refused.
    expect(await createReadPage({ links, documents })({ url: `${web.origin}/menu` })).toEqual({
      problem: expect.stringContaining('its link points to a private network address'),
    });
  });

  it('read_url says a site that cannot be reached is the reason, not robots.txt', async () => {
    const { links, documents } = linkAndDocumentReaders();
    // Nothing listens on this port: it stands for a public site whose server is down.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedOrigin = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const readPage = createReadPage({
      links,
      documents,
      policy: { ...modelFetchPolicy, trustedOrigins: [closedOrigin, web.origin] },
    });
    const refused = await readPage({ url: `${closedOrigin}/menu` });
    expect(refused).toEqual({
      problem: `I could not read ${new URL(closedOrigin).host}/menu: the site refused the connection.`,
    });
    // A name with no address (`.invalid` never resolves, RFC 2606): the name is the reason.
    const nowhere = await readPage({ url: 'http://no-such-host.invalid/menu' });
    expect(nowhere).toEqual({
      problem: expect.stringMatching(/^I could not read no-such-host\.invalid\/menu/),
    });
    expect(JSON.stringify(nowhere)).not.toContain('robots.txt');
    // A robots.txt that fails with a server error: parley does not read the site (RFC 9309, 2.3.1.4),
    // and says the site failed, not that its rules forbid it.
    web.setRobots({ status: 503 });
    const failing = await readPage({ url: `${web.origin}/menu` });
    expect(failing).toEqual({
      problem: `I could not read ${new URL(web.origin).host}/menu (the site answered 503).`,
    });
    // A site whose robots.txt forbids the page is still told as robots.txt (a fresh reader: robots.txt
    // answers are kept an hour per site).
    web.setRobots('User-agent: *\nDisallow: /private/');
    const forbidden = await createReadPage({
      ...linkAndDocumentReaders(),
      policy: { ...modelFetchPolicy, trustedOrigins: [web.origin] },
    })({ url: `${web.origin}/private/notes` });
    expect(forbidden).toEqual({
      problem: expect.stringContaining("the site's robots.txt asks bots like me not to"),
    });
  });

  it('a model without tools gets a search-first step: a small structured decision, then the answer', async () => {
    const bot = await startConsoleUnderTest({ SEARCH_URL: searxng.url, CHAT_MODEL: 'chat-model' });
    searxng.setResults('tide Brest', tideResults);
    bot.fake.enqueue({ text: JSON.stringify({ shouldSearch: true, query: 'tide Brest' }) });
    bot.fake.enqueue({ text: 'At 14:05 [1].' });
    const printed = await bot.type('when is high tide in Brest?');
    await bot.close();
    expect(printed).toContain(
      'At 14:05 [1].\n\n**Sources**\n1. [Tide times Brest](https://tides.example/brest)',
    );
    const [decision, answer] = bot.fake.requests.map(
      (request) => request.body as ChatBody & { response_format?: { type: string } },
    );
    expect(decision?.response_format?.type).toBe('json_schema');
    expect(answer?.tools).toBeUndefined();
    expect(JSON.stringify(answer?.messages.at(-1)?.content)).toContain(
      '<search_results query=\\"tide Brest\\">',
    );
  });

  it('a gateway that refuses tools for a model is noticed, and the turn searches first instead', async () => {
    const bot = await startConsoleUnderTest({ SEARCH_URL: searxng.url, CHAT_MODEL: 'believed-tools-model' });
    // The refused request takes a behaviour of the fake's queue too.
    bot.fake.enqueue({ text: 'never sent' });
    bot.fake.enqueue({ text: JSON.stringify({ shouldSearch: false, query: '' }) });
    bot.fake.enqueue({ text: 'Hello there.' });
    const printed = await bot.type('hello');
    await bot.close();
    expect(printed).toContain('Hello there.');
    expect(printed).not.toContain('Sources');
    expect(bot.fake.requests.map((request) => (request.body as ChatBody).tools !== undefined)).toEqual([
      true,
      false,
      false,
    ]);
    expect(searxng.queries).toEqual([]);
  });

  it('a search provider that is down: the model is told, the person gets a note, the answer still comes', async () => {
    const bot = await startConsoleUnderTest({ SEARCH_URL: searxng.url, CHAT_MODEL: 'tools-model' });
    searxng.failWith(502);
    bot.fake.enqueue({ toolCalls: [{ name: 'web_search', arguments: { query: 'news' } }] });
    bot.fake.enqueue({ text: 'I could not search, but from what I know…' });
    const printed = await bot.type('any news?');
    await bot.close();
    expect(printed).toContain('I could not search, but from what I know…');
    expect(printed).toContain(
      'Web search is unavailable right now (the search service did not answer), so I answered without it.',
    );
    expect(String((bot.fake.requests[1]?.body as ChatBody | undefined)?.messages.at(-1)?.content)).toMatch(
      /^<tool_result tool="web_search" source="built-in">\nWeb search is unavailable/,
    );
    expect(bot.logOutput()).toContain('searxng answered 502');
  });

  it('on Slack the thread status says what is searched', async () => {
    const bot = await startSlackUnderTest({
      mode: 'http',
      environment: { SEARCH_URL: searxng.url, CHAT_MODEL: 'tools-model' },
    });
    bot.gateway.enqueue({ toolCalls: [{ name: 'web_search', arguments: { query: 'ferry timetable' } }] });
    bot.gateway.enqueue({ text: 'The ferry leaves at 9 [1].' });
    const mention = appMention({ channel: 'C0SEARCH01', text: 'when does the ferry leave?' });
    await bot.deliverEvent(mention);
    // The search is a task card of the native stream, and the answer streams below it: the message
    // keeps the stream's Markdown, never rewritten.
    const reply = await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0SEARCH01', String(mention.ts))
        .find((message) => message.text.includes('Sources')),
    );
    const statuses = bot.slack
      .callsTo('assistant.threads.setStatus')
      .map((call) => (call.arguments as { status: string }).status);
    await bot.close();
    expect(statuses).toContain('🔎 searching: ferry timetable');
    expect(reply.text).toBe(
      'The ferry leaves at 9 [1].\n\n**Sources**\n1. [About ferry timetable](https://example.org/ferry-timetable)\n\n_🔧 used 1 tool_',
    );
    expect(bot.slack.callsTo('chat.update')).toEqual([]);
  });

  it('on Discord /search searches with the question itself, without asking the model first', async () => {
    const under = await startDiscordUnderTest({ SEARCH_URL: searxng.url });
    const channel = under.discord.textChannelIds[0] ?? '';
    under.gateway.enqueue({ text: 'Here is what I found [2].' });
    under.discord.sendSlashCommand({
      name: 'search',
      channelId: channel,
      options: { query: 'parley chat bot' },
    });
    const reply = await under.discord.waitFor(() =>
      under.discord.messages(channel).find((message) => message.content.includes('**Sources**')),
    );
    await under.close();
    expect(searxng.queries).toEqual(['parley chat bot']);
    expect(under.gateway.requests).toHaveLength(1);
    expect(reply.content).toBe(
      'Here is what I found [2].\n\n**Sources**\n2. [parley chat bot: the details](https://example.net/parley-chat-bot)',
    );
  });
});

/** The link reader and document reader `read_url` reads with, as the app builds them. */
function linkAndDocumentReaders() {
  const { logger } = createCapturedLogger([]);
  const links = createLinkReader({
    mode: 'on',
    maxLinks: 3,
    maxBytes: 1_000_000,
    timeoutMs: 5_000,
    userAgent: 'parley-test',
    privateOrigins: [],
    logger,
  });
  const documents = createDocumentReader({
    store: createDocumentStore({ store: new Keyv(), maxTotalBytes: 10_000_000, lifetimeMs: 60_000 }),
    maxBytes: 1_000_000,
    readLimits: { maxUnits: 10, maxCharacters: 50_000, maxRenderedPages: 1, maxUnpackedBytes: 5_000_000 },
    workerLimits: { timeoutMs: 20_000, maxHeapMb: 256 },
    logger,
  });
  return { links, documents };
}

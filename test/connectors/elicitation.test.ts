import { afterEach, describe, expect, it } from 'vitest';
import { type OAuthMcpServer, startOAuthMcpServer } from '../support/oauth-mcp-server.ts';
import {
  conversationKey,
  createSharedState,
  followLink,
  linkIn,
  type ParleyUnderTest,
  personActor,
  runContext,
  startParley,
} from './connector-harness.ts';

/**
 * A server's question mid-call (MCP `elicitation/create`), asked of the asker alone: a private link
 * to a form made from the requested schema, the answer checked against it before the server gets
 * it; decline and no answer in time reach the server as the specification says.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connected(
  deadlineSeconds = 30,
): Promise<{ server: OAuthMcpServer; subject: ParleyUnderTest }> {
  const server = await startOAuthMcpServer();
  cleanups.push(() => server.close());
  const subject = await startParley({
    servers: { crm: { url: server.url, auth: 'person', deadlineSeconds } },
    shared: createSharedState(),
  });
  cleanups.push(() => subject.close());
  const actor = personActor('alice');
  const told: string[] = [];
  const { tools } = await subject.connectors.toolsFor({ actor, conversationKey });
  await tools[0]?.run({ arguments: {}, context: runContext(actor, told) });
  server.nextAccount = 'alice@crm';
  expect((await followLink(linkIn(told[0]))).status).toBe(200);
  return { server, subject };
}

/** Calls book_table as alice; `told` fills with what she is told privately meanwhile. */
async function book(subject: ParleyUnderTest, told: string[]) {
  const actor = personActor('alice');
  const { tools } = await subject.connectors.toolsFor({ actor, conversationKey });
  const tool = tools.find((candidate) => candidate.name === 'crm_book_table');
  if (!tool) throw new Error('no crm_book_table');
  return tool.run({ arguments: {}, context: runContext(actor, told) });
}

async function questionLink(told: string[]): Promise<string> {
  for (let tries = 0; tries < 400; tries += 1) {
    const found = told.find((text) => text.includes('/answer/'));
    const link = /(http:\/\/\S+\/answer\/\S+)/.exec(found ?? '')?.[1];
    if (link) return link;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no question was asked');
}

const post = (link: string, fields: Record<string, string>) =>
  fetch(link, { method: 'POST', body: new URLSearchParams(fields) });

describe('a server asks the person mid-call (elicitation)', () => {
  it('sends the asker a private form; a wrong answer is shown again with what to fix; the checked answer reaches the server', async () => {
    const { server, subject } = await connected();
    const told: string[] = [];
    const calling = book(subject, told);
    const link = await questionLink(told);
    expect(told.find((text) => text.includes('/answer/'))).toContain('crm asks: How many people, and when?');
    const page = await fetch(link);
    expect(page.status).toBe(200);
    const form = await page.text();
    expect(form).toContain('<select id="time" name="time">');
    const wrong = await post(link, { _action: 'accept', people: '40', time: '23:00' });
    expect(wrong.status).toBe(400);
    const problems = await wrong.text();
    expect(problems).toContain('People: at most 12');
    expect(problems).toContain('Time: choose one of the options offered');
    const right = await post(link, { _action: 'accept', people: '4', time: '20:00' });
    expect(right.status).toBe(200);
    const output = await calling;
    // The unticked box is false; nothing else was added.
    expect(server.elicited).toEqual([
      { action: 'accept', content: { people: 4, time: '20:00', vegetarian: false } },
    ]);
    expect(output.text).toContain('"people":4');
    // Answered once: the link is spent.
    expect((await fetch(link)).status).toBe(410);
  });

  it('Decline reaches the server as decline', async () => {
    const { server, subject } = await connected();
    const told: string[] = [];
    const calling = book(subject, told);
    const link = await questionLink(told);
    expect((await post(link, { _action: 'decline' })).status).toBe(200);
    await calling;
    expect(server.elicited).toEqual([{ action: 'decline' }]);
  });

  it('no answer within the call’s deadline reaches the server as cancel', async () => {
    const { server, subject } = await connected(4);
    const told: string[] = [];
    await book(subject, told);
    expect(server.elicited).toEqual([{ action: 'cancel' }]);
  });

  it('where nobody can be asked alone (a scheduled run), the question is declined at once', async () => {
    const { server, subject } = await connected();
    const actor = personActor('alice');
    const { tools } = await subject.connectors.toolsFor({ actor, conversationKey });
    const { tellAskerPrivately: _none, ...withoutPrivateLine } = runContext(actor);
    await tools
      .find((tool) => tool.name === 'crm_book_table')
      ?.run({ arguments: {}, context: withoutPrivateLine });
    expect(server.elicited).toEqual([{ action: 'decline' }]);
  });
});

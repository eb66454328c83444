import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  discoverOAuthServerInfo,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import Keyv from 'keyv';
import { parseHTML } from 'linkedom';
import { createAuditLog } from '../../src/audit/audit-log.ts';
import { createConnectLinks } from '../../src/connectors/connect-links.ts';
import { createConnectionStore } from '../../src/connectors/connection-store.ts';
import { type Connectors, createConnectors } from '../../src/connectors/connectors.ts';
import {
  answerQuestionWith,
  createElicitationQuestions,
} from '../../src/connectors/elicitation-questions.ts';
import { createLogger } from '../../src/log.ts';
import { createSources } from '../../src/search/sources.ts';
import { AtRestEncryption, parseEncryptionKey } from '../../src/secrets/encryption-at-rest.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { connectMcpServer } from '../../src/tools/mcp-server-connection.ts';
import { toolName } from '../../src/tools/mcp-tool.ts';
import { createToolbox } from '../../src/tools/toolbox.ts';
import { readToolsFile } from '../../src/tools/tools-file.ts';
import { writeToolsFile } from '../support/mcp-test-servers.ts';

/**
 * parley's MCP client, as the MCP conformance suite runs a client: `node parley-conformance-client.ts
 * <server-url>`, the scenario in MCP_CONFORMANCE_SCENARIO and its data (a pre-registered client) in
 * MCP_CONFORMANCE_CONTEXT. It does what a person does in chat: asks for a Connect link, opens it (the
 * suite's authorization page answers at once with its redirect, whose code and state go to parley's
 * callback with the browser's cookie secret), then lets the model's tool call run as them. Every
 * request goes through parley's connectors and guarded fetch; the suite's servers are on loopback, so
 * their origins are trusted as an operator trusts their own (found here with plain fetch first).
 */
const serverUrl = process.argv.at(-1) ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const suiteContext = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  client_id?: string;
  client_secret?: string;
};

async function suiteOrigins(): Promise<string[]> {
  const challenge = await fetch(serverUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
  });
  await challenge.body?.cancel();
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenge);
  const info = await discoverOAuthServerInfo(serverUrl, resourceMetadataUrl ? { resourceMetadataUrl } : {});
  const endpoints = Object.values(info.authorizationServerMetadata ?? {}).filter(
    (value): value is string => typeof value === 'string' && /^https?:\/\//.test(value),
  );
  return [...new Set([info.authorizationServerUrl, ...endpoints].map((url) => new URL(url).origin))];
}

async function main(): Promise<void> {
  const reading = readToolsFile({
    path: writeToolsFile({
      suite: {
        url: serverUrl,
        auth: 'person',
        ...(suiteContext.client_id
          ? {
              oauth: {
                clientId: suiteContext.client_id,
                ...(suiteContext.client_secret ? { clientSecret: suiteContext.client_secret } : {}),
              },
            }
          : {}),
      },
    }),
    isDefaultPath: false,
    environment: {},
    parleyVariableNames: new Set(),
    resolvePath: (path) => path,
  });
  if ('problems' in reading) throw new Error(reading.problems.join('\n'));
  const logger = createLogger({
    log: { level: 'debug', format: 'json', file: undefined },
    secrets: [],
    destination: process.stderr,
    isTraced: false,
  });
  const lock = createInProcessLock();
  const encryption = new AtRestEncryption({
    current: parseEncryptionKey({ value: 'c'.repeat(64), variable: 'KEY' }),
  });
  const connectors = createConnectors({
    servers: reading.servers,
    store: createConnectionStore({ store: new Keyv(), encryption }),
    links: createConnectLinks({ store: new Keyv(), encryption }),
    lock,
    // https, so parley offers its Client ID Metadata Document where the authorization server takes one.
    publicUrl: 'https://parley.conformance.test',
    audit: createAuditLog({ store: new Keyv(), lock, logger, minimumRetentionDays: undefined }),
    standingNow: async () => ({ isAllowed: true }),
    clientVersion: 'conformance',
    trustedOrigins: await suiteOrigins(),
    // The suite checks for its own document's URL as the client id (SEP-991).
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    logger,
  });
  const actor = { id: 'U1', name: 'conformance', roleIds: [], isAdmin: false, context: 'server' as const };
  const conversationKey = 'terminal:local:conformance';
  const told: string[] = [];
  const context = {
    signal: new AbortController().signal,
    actor,
    conversationKey,
    sources: createSources(),
    notices: [] as string[],
    logger,
    tellAskerPrivately: async (text: string) => {
      told.push(text);
    },
  };
  const begun = await connectors.beginConnect({ actor, conversationKey, server: 'suite' });
  if ('problem' in begun) throw new Error(`${scenario}: ${begun.problem}`);
  await openAsTheBrowser(connectors, begun.link);
  const callTheTool = async () => {
    const { tools } = await connectors.toolsFor({ actor, conversationKey });
    const tool = tools.find((candidate) => candidate.name === toolName('suite', 'test-tool'));
    return tool?.run({ arguments: {}, context });
  };
  let output = await callTheTool();
  // A step-up: parley sent the person a new link for the scope the call needs; they open it and ask again.
  const stepUp = told.find((text) => text.includes('needs more access'));
  if (output?.isError && stepUp) {
    await openAsTheBrowser(connectors, /(https:\/\/\S+\/connect\/\S+)/.exec(stepUp)?.[1] ?? '');
    output = await callTheTool();
  }
  if (output?.isError) {
    throw new Error(`${scenario}: the tool call failed: ${output.text} ${context.notices.join(' ')}`);
  }
  await connectors.close();
}

/** The person's browser: the link, the authorization page's redirect, parley's callback with the cookie's secret. */
async function openAsTheBrowser(connectors: Connectors, link: string): Promise<void> {
  const opened = await connectors.open(link.split('/connect/')[1] ?? '');
  if (!opened) throw new Error('the Connect link did not open');
  const authorization = await fetch(opened.location, { redirect: 'manual' });
  const back = new URL(authorization.headers.get('location') ?? '');
  const finished = await connectors.finish({
    state: back.searchParams.get('state') ?? '',
    code: back.searchParams.get('code') ?? undefined,
    error: back.searchParams.get('error') ?? undefined,
    browserSecret: opened.browserSecret,
  });
  if (finished.status !== 200)
    throw new Error(`${scenario}: the callback said ${finished.status} ${finished.text}`);
}

/**
 * A scenario without authorization (`initialize`, `tools_call`): parley's client for the tools file's
 * plain servers, as the bot runs it: connected, its tools listed into a toolbox, and the suite's
 * `add_numbers` called as the model would call it.
 */
async function runPlainServer(): Promise<void> {
  const reading = readToolsFile({
    path: writeToolsFile({ suite: { url: serverUrl } }),
    isDefaultPath: false,
    environment: {},
    parleyVariableNames: new Set(),
    resolvePath: (path) => path,
  });
  if ('problems' in reading) throw new Error(reading.problems.join('\n'));
  const [settings] = reading.servers;
  if (!settings) throw new Error('no server');
  const logger = createLogger({
    log: { level: 'info', format: 'json', file: undefined },
    secrets: [],
    destination: process.stderr,
    isTraced: false,
  });
  const toolbox = createToolbox();
  // A server's question mid-call goes to the asker's private line as a link to a form on parley's
  // HTTP server; here that server is a local one and the person a browser that sends the form as
  // filled in (its defaults).
  const encryption = new AtRestEncryption({
    current: parseEncryptionKey({ value: 'd'.repeat(64), variable: 'KEY' }),
  });
  let route: (request: IncomingMessage, response: ServerResponse) => Promise<boolean> = async () => false;
  const http = createServer((request, response) => {
    void route(request, response).then((handled) => {
      if (!handled) response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolveListening) => http.listen(0, '127.0.0.1', resolveListening));
  const questions = createElicitationQuestions({
    store: new Keyv(),
    encryption,
    publicUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
  });
  route = questions.route;
  const connection = connectMcpServer({
    settings,
    toolbox,
    logger,
    clientVersion: 'conformance',
    answerQuestion: answerQuestionWith(questions),
  });
  const deadline = Date.now() + 20_000;
  while (connection.state().status !== 'up') {
    if (Date.now() > deadline) throw new Error(`${scenario}: the server did not come up`);
    await new Promise((resolveLater) => setTimeout(resolveLater, 25));
  }
  // Its tools join the toolbox once listed; a server may list none (initialize's lists none).
  const listedBy = Date.now() + 3_000;
  while (connection.state().toolCount === 0 && Date.now() < listedBy) {
    await new Promise((resolveLater) => setTimeout(resolveLater, 25));
  }
  const actor = { id: 'U1', name: 'conformance', roleIds: [], isAdmin: false, context: 'server' as const };
  const told: string[] = [];
  const context = {
    signal: new AbortController().signal,
    actor,
    conversationKey: 'terminal:local:conformance',
    sources: createSources(),
    notices: [] as string[],
    logger,
    tellAskerPrivately: async (text: string) => {
      told.push(text);
      const link = /(http:\/\/\S+\/answer\/\S+)/.exec(text)?.[1];
      if (link) void answerAsTheBrowser(link);
    },
  };
  const asking = toolbox
    .all()
    .find((tool) => tool.name === toolName('suite', 'test_client_elicitation_defaults'));
  if (asking) {
    const output = await asking.run({ arguments: {}, context });
    if (output.isError || told.length === 0)
      throw new Error(`${scenario}: the question went wrong: ${output.text}`);
  }
  const add = toolbox.all().find((tool) => tool.name === toolName('suite', 'add_numbers'));
  if (add) {
    const output = await add.run({ arguments: { a: 2, b: 3 }, context });
    if (output.isError || !output.text.includes('5'))
      throw new Error(`${scenario}: add_numbers said ${output.text}`);
  }
  await connection.close();
  http.close();
}

/** A browser that opens the question's form and sends it as it comes, filled in with its defaults. */
async function answerAsTheBrowser(link: string): Promise<void> {
  const { document } = parseHTML(await (await fetch(link)).text());
  const form = new URLSearchParams({ _action: 'accept' });
  for (const input of document.querySelectorAll('input')) {
    const type = input.getAttribute('type');
    if ((type === 'checkbox' && !input.hasAttribute('checked')) || !input.getAttribute('name')) continue;
    form.append(input.getAttribute('name') ?? '', input.getAttribute('value') ?? '');
  }
  for (const select of document.querySelectorAll('select')) {
    const chosen = select.querySelector('option[selected]');
    form.append(select.getAttribute('name') ?? '', chosen?.getAttribute('value') ?? '');
  }
  await fetch(link, { method: 'POST', body: form });
}

(scenario.startsWith('auth/') ? main() : runPlainServer()).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);

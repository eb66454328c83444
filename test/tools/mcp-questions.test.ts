import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createSources } from '../../src/search/sources.ts';
import type { AnswerQuestion } from '../../src/tools/mcp-questions.ts';
import { connectMcpServer } from '../../src/tools/mcp-server-connection.ts';
import type { ToolRunContext } from '../../src/tools/tool.ts';
import { createToolbox } from '../../src/tools/toolbox.ts';
import { readToolsFile } from '../../src/tools/tools-file.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { waitUntil, writeToolsFile } from '../support/mcp-test-servers.ts';

/**
 * A shared MCP server's question mid-call (elicitation) goes to the asker of the one call running
 * on that session, never to someone else's: with two people's calls running there, it is declined.
 * An SDK server over real sockets; the question is answered by a stand-in for parley's private form.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A server whose `ask` tool waits until `together` calls run, asks its question, and returns once
 * every call has had its answer.
 */
async function startAskingServer(together: number): Promise<{ url: string; answers: unknown[] }> {
  const answers: unknown[] = [];
  let running = 0;
  const app = express();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  app.post('/mcp', express.json(), async (request, response) => {
    const known = transports.get(request.header('mcp-session-id') ?? '');
    if (known) {
      await known.handleRequest(request, response, request.body);
      return;
    }
    const mcp = new McpServer({ name: 'asking', version: '1.0.0' });
    mcp.registerTool('ask', { annotations: { readOnlyHint: true } }, async () => {
      running += 1;
      while (running < together) await new Promise((resolve) => setTimeout(resolve, 10));
      const answer = await mcp.server.elicitInput({
        message: 'Which colour?',
        requestedSchema: { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] },
      });
      answers.push(answer);
      // Every call stays until each has had its answer, so all questions come while all run.
      while (answers.length < together) await new Promise((resolve) => setTimeout(resolve, 10));
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, request.body);
  });
  // The server's own requests (its question) travel on the session's GET stream.
  app.get('/mcp', async (request, response) => {
    const transport = transports.get(request.header('mcp-session-id') ?? '');
    if (!transport) {
      response.status(400).end();
      return;
    }
    await transport.handleRequest(request, response);
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const transport of transports.values()) await transport.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, answers };
}

function contextOf(id: string): ToolRunContext {
  return {
    signal: new AbortController().signal,
    actor: { id, name: id, roleIds: [], isAdmin: false, context: 'server' },
    conversationKey: 'discord:guild:channel',
    sources: createSources(),
    notices: [],
    logger: createCapturedLogger().logger,
    tellAskerPrivately: async () => {},
  };
}

async function connectTo(url: string, answerQuestion: AnswerQuestion) {
  const reading = readToolsFile({
    path: writeToolsFile({ shared: { url } }),
    isDefaultPath: false,
    environment: {},
    parleyVariableNames: new Set(),
    resolvePath: (path) => path,
  });
  if ('problems' in reading || !reading.servers[0]) throw new Error('no server');
  const toolbox = createToolbox();
  const connection = connectMcpServer({
    settings: reading.servers[0],
    toolbox,
    logger: createCapturedLogger().logger,
    clientVersion: 'test',
    answerQuestion,
  });
  cleanups.push(() => connection.close());
  await waitUntil(() => toolbox.all().length > 0);
  const ask = toolbox.all()[0];
  if (!ask) throw new Error('no tool');
  return ask;
}

describe('a shared server’s question mid-call', () => {
  it('is asked of the asker of the one call running', async () => {
    const server = await startAskingServer(1);
    const asked: string[] = [];
    const ask = await connectTo(server.url, async ({ context }) => {
      asked.push(context.actor.id);
      return { action: 'accept', content: { colour: 'teal' } };
    });
    await ask.run({ arguments: {}, context: contextOf('alice') });
    expect(asked).toEqual(['alice']);
    expect(server.answers).toEqual([{ action: 'accept', content: { colour: 'teal' } }]);
  });

  it('is declined while two people’s calls run there, so neither is asked what is the other’s', async () => {
    const server = await startAskingServer(2);
    const asked: string[] = [];
    const ask = await connectTo(server.url, async ({ context }) => {
      asked.push(context.actor.id);
      return { action: 'accept', content: { colour: 'teal' } };
    });
    await Promise.all([
      ask.run({ arguments: {}, context: contextOf('alice') }),
      ask.run({ arguments: {}, context: contextOf('bob') }),
    ]);
    expect(asked).toEqual([]);
    expect(server.answers).toEqual([{ action: 'decline' }, { action: 'decline' }]);
  });
});

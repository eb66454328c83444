import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.ts';
import type { KeyedLock } from '../state/keyed-lock.ts';
import type { AnswerQuestion } from '../tools/mcp-questions.ts';
import { type CallMcpTool, toolsOfServer } from '../tools/mcp-tool.ts';
import { mcpToolOutput } from '../tools/mcp-tool-output.ts';
import type { Tool, ToolRunContext } from '../tools/tool.ts';
import type { McpServerSettings } from '../tools/tools-file.ts';
import { type ConnectionOwner, type ConnectionStore, ownerKey } from './connection-store.ts';
import { ReconnectNeededError } from './connector-oauth-provider.ts';

/** How long a connection's MCP session stays open with nobody using it. */
const idleSessionMs = 10 * 60_000;
/** A token this close to its end is refreshed before use, not after the server refuses it. */
const refreshMarginMs = 60_000;
const connectTimeoutMs = 30_000;
const maxListPages = 20;

/** One owner's open MCP session with one server, and the tools it listed. */
interface Session {
  readonly client: Client;
  readonly tools: readonly Tool[];
  lastUsedMs: number;
}

/**
 * The MCP sessions of connectors, one per owner (a person, or a place) and server, opened on the
 * first turn that needs them with that owner's token only, and closed when idle. A token near its
 * end is refreshed once for every process: under a lock of the shared store, the record is read
 * again and refreshed only if no other process did.
 */
export interface ConnectorSessions {
  /** The server's tools as this owner may call them; ReconnectNeededError when the token is gone. */
  toolsOf(request: { owner: ConnectionOwner; settings: McpServerSettings }): Promise<readonly Tool[]>;
  /** Closes this owner's session with the server (a disconnect, /forget me). */
  end(owner: ConnectionOwner, server: string): Promise<void>;
  close(): Promise<void>;
}

export function createConnectorSessions({
  store,
  lock,
  providerFor,
  fetchFor,
  clientVersion,
  nowMs,
  answerQuestion,
  logger,
}: {
  store: ConnectionStore;
  /** Shared by every process when the store is Redis (Coordination.recordLock). */
  lock: KeyedLock;
  providerFor: (owner: ConnectionOwner, settings: McpServerSettings) => OAuthClientProvider;
  fetchFor: (settings: McpServerSettings) => FetchLike;
  clientVersion: string;
  nowMs: () => number;
  /** Asks the person a server's question mid-call; absent, parley declares no elicitation. */
  answerQuestion?: AnswerQuestion;
  logger: Logger;
}): ConnectorSessions {
  const sessions = new Map<string, Promise<Session>>();
  const keyOf = (owner: ConnectionOwner, server: string) => `${ownerKey(owner)}:${server}`;
  const sweeper = setInterval(() => void closeIdle(), 60_000);
  sweeper.unref();

  async function closeIdle(): Promise<void> {
    for (const [key, opening] of sessions) {
      const session = await opening.catch(() => undefined);
      if (session && nowMs() - session.lastUsedMs > idleSessionMs) {
        sessions.delete(key);
        await session.client.close().catch(() => {});
      }
    }
  }

  async function ensureFresh(owner: ConnectionOwner, settings: McpServerSettings): Promise<void> {
    const isStale = async () => {
      const connection = await store.get(owner, settings.name);
      if (!connection) throw new ReconnectNeededError(settings.name);
      return (
        connection.expiresAtMs !== undefined &&
        connection.expiresAtMs - refreshMarginMs <= nowMs() &&
        connection.tokens.refresh_token !== undefined
      );
    };
    if (!(await isStale())) return;
    await lock.run(`connector-refresh:${keyOf(owner, settings.name)}`, async () => {
      if (!(await isStale())) return;
      const url = httpUrlOf(settings);
      // The SDK refreshes with the stored refresh token (and saves the new tokens through the
      // provider); a refused refresh ends in ReconnectNeededError from the provider.
      await auth(providerFor(owner, settings), { serverUrl: url, fetchFn: fetchFor(settings) });
      logger.info({ server: settings.name }, 'connector token refreshed');
    });
  }

  async function open(owner: ConnectionOwner, settings: McpServerSettings): Promise<Session> {
    await ensureFresh(owner, settings);
    const transport = settings.transport;
    if (transport.kind !== 'http') throw new Error('a connector is an HTTP server');
    const client = new Client(
      { name: 'parley', version: clientVersion },
      { capabilities: answerQuestion ? { elicitation: { form: {} } } : {} },
    );
    // A session is one owner's: a question during a call is for whoever's call runs on it now.
    let callingContext: ToolRunContext | undefined;
    if (answerQuestion) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        const context = callingContext;
        // Only a form can be asked; a URL (sensitive data, outside parley) and a question outside
        // a call, or where nobody can be asked alone, are declined.
        if (!context || request.params.mode === 'url' || !context.tellAskerPrivately)
          return { action: 'decline' };
        return answerQuestion({ settings, params: request.params as ElicitRequestFormParams, context });
      });
    }
    const key = keyOf(owner, settings.name);
    const call: CallMcpTool = async ({ name, arguments: toolArguments, timeoutMs, context }) => {
      const session = await sessions.get(key)?.catch(() => undefined);
      if (session) session.lastUsedMs = nowMs();
      try {
        await ensureFresh(owner, settings);
        callingContext = context;
        const result = await client.callTool({ name, arguments: toolArguments }, undefined, {
          signal: context.signal,
          timeout: timeoutMs,
        });
        return mcpToolOutput(result);
      } catch (error) {
        if (isReconnectNeeded(error)) {
          sessions.delete(key);
          void client.close().catch(() => {});
          throw reconnectErrorIn(error) ?? new ReconnectNeededError(settings.name);
        }
        if (!(error instanceof McpError)) {
          sessions.delete(key);
          void client.close().catch(() => {});
        }
        throw error;
      }
    };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(transport.url), {
        requestInit: { headers: { ...transport.headers } },
        redirectPolicy: 'follow',
        authProvider: providerFor(owner, settings),
        fetch: fetchFor(settings),
      }),
      { timeout: connectTimeoutMs },
    );
    const listed = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxListPages; page += 1) {
      const answer = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: connectTimeoutMs,
      });
      listed.push(...answer.tools);
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
    }
    const tools = toolsOfServer({ settings, listed, call, logger: logger.child({ server: settings.name }) });
    return { client, tools, lastUsedMs: nowMs() };
  }

  return {
    async toolsOf({ owner, settings }) {
      const key = keyOf(owner, settings.name);
      let opening = sessions.get(key);
      if (!opening) {
        opening = open(owner, settings);
        sessions.set(key, opening);
      }
      try {
        const session = await opening;
        session.lastUsedMs = nowMs();
        return session.tools;
      } catch (error) {
        if (sessions.get(key) === opening) sessions.delete(key);
        if (isReconnectNeeded(error))
          throw reconnectErrorIn(error) ?? new ReconnectNeededError(settings.name);
        throw error;
      }
    },
    async end(owner, server) {
      const key = keyOf(owner, server);
      const opening = sessions.get(key);
      sessions.delete(key);
      const session = await opening?.catch(() => undefined);
      await session?.client.close().catch(() => {});
    },
    async close() {
      clearInterval(sweeper);
      const all = [...sessions.values()];
      sessions.clear();
      for (const opening of all) {
        const session = await opening.catch(() => undefined);
        await session?.client.close().catch(() => {});
      }
    },
  };
}

/**
 * The token is gone for good, or the server refuses it and the SDK could not get another: a 401
 * even after a fresh authorization (a token for another resource, say) counts too.
 */
export function isReconnectNeeded(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof ReconnectNeededError || current instanceof UnauthorizedError) return true;
    if (current instanceof StreamableHTTPError && current.code === 401) return true;
  }
  return false;
}

/** The ReconnectNeededError inside an error (the SDK wraps what the provider throws), if any. */
export function reconnectErrorIn(error: unknown): ReconnectNeededError | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof ReconnectNeededError) return current;
  }
  return undefined;
}

export function httpUrlOf(settings: McpServerSettings): string {
  if (settings.transport.kind !== 'http') throw new Error('a connector is an HTTP server');
  return settings.transport.url;
}

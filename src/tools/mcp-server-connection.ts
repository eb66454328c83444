import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  type Tool as McpToolListing,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.ts';
import type { GuardedAgents } from '../net/guarded-agents.ts';
import { BlockedUrlError } from '../net/guarded-fetch.ts';
import { recordMcpServerUp } from '../operations/metrics.ts';
import { createMcpFetch } from './mcp-fetch.ts';
import type { AnswerQuestion } from './mcp-questions.ts';
import { type CallMcpTool, toolsOfServer } from './mcp-tool.ts';
import { mcpToolOutput } from './mcp-tool-output.ts';
import type { ToolRunContext } from './tool.ts';
import type { Toolbox } from './toolbox.ts';
import type { McpServerSettings } from './tools-file.ts';

/** How one server is doing, for /readyz and the tests. */
export interface McpServerState {
  readonly name: string;
  readonly transport: 'stdio' | 'http';
  readonly status: 'connecting' | 'up' | 'down' | 'closed';
  /** Tools of it in the toolbox now. */
  readonly toolCount: number;
  /** Why it is down, in a few words of parley's own (the log has the error). */
  readonly problem: string | undefined;
  /** When the next attempt starts, while it is down. */
  readonly retryAt: number | undefined;
  /** The process parley started for it (stdio), while it runs. */
  readonly pid: number | undefined;
}

/** Waits between attempts: doubling from `initialMs` up to `maxMs`, back to the start after `stableMs` up. */
export interface RetryTiming {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly stableMs: number;
}

export const defaultRetryTiming: RetryTiming = { initialMs: 1_000, maxMs: 60_000, stableMs: 30_000 };

export interface McpServerConnection {
  state(): McpServerState;
  /** Stops the server (or the session with it) and takes its tools out of the toolbox. */
  close(): Promise<void>;
}

/** How long the handshake and a tools listing may take. */
const connectTimeoutMs = 30_000;
/** Pages of tools/list read at most (a server that pages forever is cut off). */
const maxListPages = 20;
/** Lines of a child's stderr kept for the note when it stops. */
const keptStderrLines = 8;

/**
 * One MCP server, through the official SDK client: started (stdio) or reached (Streamable HTTP),
 * its tools listed into the toolbox at start and again on `notifications/tools/list_changed`. When
 * it stops (the process exits, the connection fails, a call finds it gone) its tools leave the
 * toolbox with a note in the log, and it is started again after a growing wait; nothing it does
 * can throw out of here.
 */
export function connectMcpServer({
  settings,
  toolbox,
  logger,
  clientVersion,
  retry = defaultRetryTiming,
  agents,
  answerQuestion,
}: {
  settings: McpServerSettings;
  toolbox: Toolbox;
  logger: Logger;
  clientVersion: string;
  retry?: RetryTiming;
  /** Connection pools of HTTP servers; the process's shared ones unless a test brings its own. */
  agents?: GuardedAgents;
  /** Asks the asker a server's question mid-call (elicitation); absent, parley declares none. */
  answerQuestion?: AnswerQuestion;
}): McpServerConnection {
  const { name } = settings;
  const log = logger.child({ server: name });
  let status: McpServerState['status'] = 'connecting';
  let problem: string | undefined;
  let retryAt: number | undefined;
  let failures = 0;
  let upSince: number | undefined;
  let client: Client | undefined;
  let transport: Transport | undefined;
  let timer: NodeJS.Timeout | undefined;
  let toolCount = 0;
  // Each attempt's handlers act only while theirs is the current attempt.
  let attempt = 0;
  let listing: { again: boolean } | undefined;
  const stderrLines: string[] = [];
  // The calls running now, so a server's question (elicitation) goes to the one person it can be for.
  const callsInFlight = new Set<ToolRunContext>();

  const call: CallMcpTool = async ({ name: toolName, arguments: toolArguments, timeoutMs, context }) => {
    const current = client;
    if (current === undefined || status !== 'up') {
      return { text: `The MCP server ${name} is not connected right now; try again later.`, isError: true };
    }
    callsInFlight.add(context);
    try {
      const result = await current.callTool({ name: toolName, arguments: toolArguments }, undefined, {
        signal: context.signal,
        timeout: timeoutMs,
      });
      return mcpToolOutput(result);
    } catch (error) {
      // A protocol error is the tool's answer; anything else means the connection itself broke.
      if (!context.signal.aborted && !(error instanceof McpError) && current === client) fail(error);
      throw error;
    } finally {
      callsInFlight.delete(context);
    }
  };

  function createTransport(): Transport {
    const { transport: how } = settings;
    if (how.kind === 'stdio') {
      const stdio = new StdioClientTransport({
        command: how.command,
        args: [...how.args],
        env: { ...how.env },
        ...(how.cwd === undefined ? {} : { cwd: how.cwd }),
        stderr: 'pipe',
      });
      stdio.stderr?.on('data', (chunk: Buffer) => keepStderr(chunk.toString('utf8')));
      return stdio;
    }
    return new StreamableHTTPClientTransport(new URL(how.url), {
      requestInit: { headers: { ...how.headers } },
      // Redirects are the guarded fetch's to follow, each hop judged against the declared origin.
      redirectPolicy: 'follow',
      fetch: createMcpFetch({
        server: name,
        origin: new URL(how.url).origin,
        requestTimeoutMs: settings.deadlineMs + connectTimeoutMs,
        ...(agents ? { agents } : {}),
      }),
    });
  }

  function keepStderr(text: string): void {
    for (const line of text.split('\n')) {
      const trimmed = line.trimEnd().slice(0, 500);
      if (trimmed === '') continue;
      stderrLines.push(trimmed);
      if (stderrLines.length > keptStderrLines) stderrLines.shift();
      log.debug({ line: trimmed }, 'MCP server stderr');
    }
  }

  async function connect(): Promise<void> {
    attempt += 1;
    const mine = attempt;
    status = 'connecting';
    stderrLines.length = 0;
    const nextClient = new Client(
      { name: 'parley', version: clientVersion },
      { capabilities: answerQuestion ? { elicitation: { form: {} } } : {} },
    );
    if (answerQuestion) {
      nextClient.setRequestHandler(ElicitRequestSchema, async (request) => {
        // One session serves everyone's calls: a question is asked only when one call runs, so it
        // cannot reach someone else; a URL-mode question, or one nobody can be asked alone, is declined.
        const [only, ...others] = callsInFlight;
        if (!only || others.length > 0 || request.params.mode === 'url' || !only.tellAskerPrivately) {
          return { action: 'decline' };
        }
        return answerQuestion({ settings, params: request.params as ElicitRequestFormParams, context: only });
      });
    }
    nextClient.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (mine === attempt && status === 'up') await listTools(nextClient, 'list_changed');
    });
    // While connecting, the failed handshake says why (the close that follows it would not).
    nextClient.onclose = () => {
      if (mine === attempt && status === 'up') fail(new Error('the connection closed'));
    };
    nextClient.onerror = (error) => {
      if (mine !== attempt) return;
      log.debug({ err: error }, 'MCP transport error');
      // An HTTP server's stream of its own messages (list_changed) broke and could not be opened
      // again: the server is gone, though no call has found out yet.
      if (status === 'up' && isConnectionLost(error)) fail(error);
    };
    client = nextClient;
    transport = createTransport();
    try {
      await nextClient.connect(transport, { timeout: connectTimeoutMs });
      if (mine !== attempt) return;
      status = 'up';
      upSince = Date.now();
      problem = undefined;
      retryAt = undefined;
      recordMcpServerUp({ server: name, isUp: true });
      log.info(
        { childPid: pidOf(transport), serverInfo: nextClient.getServerVersion()?.name },
        'MCP server connected',
      );
      await listTools(nextClient, 'start');
    } catch (error) {
      if (mine === attempt) fail(error);
    }
  }

  // Listings never overlap: a change announced during one is listed again right after it.
  async function listTools(current: Client, reason: 'start' | 'list_changed'): Promise<void> {
    if (listing) {
      listing.again = true;
      return;
    }
    listing = { again: false };
    let why: string = reason;
    try {
      for (let round = 0; round === 0 || listing.again; round += 1) {
        if (round > 0) why = 'list_changed';
        listing.again = false;
        const listed: McpToolListing[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < maxListPages; page += 1) {
          const answer = await current.listTools(cursor === undefined ? undefined : { cursor }, {
            timeout: connectTimeoutMs,
          });
          listed.push(...answer.tools);
          cursor = answer.nextCursor;
          if (cursor === undefined) break;
        }
        if (current !== client || status !== 'up') return;
        const tools = toolsOfServer({ settings, listed, call, logger: log });
        toolbox.replace(name, tools);
        toolCount = tools.length;
        log.info(
          {
            reason: why,
            tools: tools.map((tool) => tool.name),
            offeredOfListed: `${tools.length}/${listed.length}`,
          },
          'MCP server tools listed',
        );
      }
    } catch (error) {
      if (reason === 'start') throw error;
      // The tools listed before stay: a failed relisting is no reason to lose them.
      log.warn({ err: error }, 'listing the tools of an MCP server again failed; its earlier tools stay');
    } finally {
      listing = undefined;
    }
  }

  function fail(error: unknown): void {
    if (status === 'down' || status === 'closed') return;
    attempt += 1;
    const wasUpMs = upSince === undefined ? 0 : Date.now() - upSince;
    if (wasUpMs >= retry.stableMs) failures = 0;
    const delayMs = Math.min(retry.initialMs * 2 ** failures, retry.maxMs);
    failures += 1;
    status = 'down';
    upSince = undefined;
    problem = describeProblem(error, settings.transport.kind);
    retryAt = Date.now() + delayMs;
    const hadTools = toolCount;
    toolbox.markDown(name);
    toolCount = 0;
    recordMcpServerUp({ server: name, isUp: false });
    const old = client;
    client = undefined;
    transport = undefined;
    void old?.close().catch(() => {});
    log.warn(
      {
        problem,
        err: error,
        retryInMs: delayMs,
        toolsRemoved: hadTools,
        ...(stderrLines.length > 0 ? { lastStderr: [...stderrLines] } : {}),
      },
      `MCP server ${name} is down (${problem}); its tools are unavailable until it is back, next try in ${Math.round(delayMs / 1000)} s`,
    );
    timer = setTimeout(() => void connect(), delayMs);
    timer.unref();
  }

  void connect();

  return {
    state: () => ({
      name,
      transport: settings.transport.kind,
      status,
      toolCount,
      problem,
      retryAt,
      pid: transport ? pidOf(transport) : undefined,
    }),
    async close() {
      status = 'closed';
      attempt += 1;
      clearTimeout(timer);
      toolbox.replace(name, []);
      toolCount = 0;
      const old = client;
      client = undefined;
      transport = undefined;
      await old?.close().catch(() => {});
    },
  };
}

/** Errors of a connection that is gone, not of one request. */
const lostConnectionCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

function isConnectionLost(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  const causeCode = (error.cause as NodeJS.ErrnoException | undefined)?.code;
  return (
    (code !== undefined && lostConnectionCodes.has(code)) ||
    (causeCode !== undefined && lostConnectionCodes.has(causeCode)) ||
    // The SDK's words when it gave up on reopening an HTTP server's event stream.
    /Maximum reconnection attempts/.test(error.message)
  );
}

function pidOf(transport: Transport): number | undefined {
  return transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
}

// Parley's own words, for /readyz (which no scrubber reads): never the error's text, which may
// quote a URL or an argument.
function describeProblem(error: unknown, kind: 'stdio' | 'http'): string {
  // The declared origin is trusted, so any refusal of a place is of one the file does not declare.
  if (error instanceof BlockedUrlError) {
    if (error.reason === 'too-many-redirects') return 'refused: it redirected too many times';
    if (error.reason === 'not-http') return 'refused: it pointed to a link that is not http(s)';
    return `refused: a request would go to ${error.host}, an origin the tools file does not declare`;
  }
  const cause = error instanceof Error && error.cause instanceof BlockedUrlError ? error.cause : undefined;
  if (cause) return describeProblem(cause, kind);
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return 'it did not answer in time';
    if (error.code === ErrorCode.ConnectionClosed)
      return kind === 'stdio' ? 'its process exited' : 'the connection closed';
    return `it answered with error ${error.code}`;
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined) {
    return error.code === 401 || error.code === 403
      ? `it refused the credentials in headers (HTTP ${error.code})`
      : `it answered HTTP ${error.code}`;
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'its command was not found';
  if (code === 'EACCES') return 'its command may not be run';
  if (code !== undefined) return `the connection failed (${code})`;
  if (error instanceof Error && error.message === 'the connection closed') {
    return kind === 'stdio' ? 'its process exited' : 'the connection closed';
  }
  return 'the connection failed';
}

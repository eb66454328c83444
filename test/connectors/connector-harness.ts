import { randomBytes } from 'node:crypto';
import Keyv from 'keyv';
import type { Actor } from '../../src/access/actor.ts';
import { type AuditLog, createAuditLog } from '../../src/audit/audit-log.ts';
import { createConnectLinks } from '../../src/connectors/connect-links.ts';
import { createConnectRoutes } from '../../src/connectors/connect-routes.ts';
import { createConnectionStore } from '../../src/connectors/connection-store.ts';
import { type Connectors, createConnectors, type StandingCheck } from '../../src/connectors/connectors.ts';
import { createElicitationQuestions } from '../../src/connectors/elicitation-questions.ts';
import { startHealthServer } from '../../src/operations/health-server.ts';
import { createSources } from '../../src/search/sources.ts';
import { AtRestEncryption, parseEncryptionKey } from '../../src/secrets/encryption-at-rest.ts';
import type { KeyedLock } from '../../src/state/keyed-lock.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import type { ToolRunContext } from '../../src/tools/tool.ts';
import { readToolsFile } from '../../src/tools/tools-file.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { writeToolsFile } from '../support/mcp-test-servers.ts';

/**
 * What the connector tests share: parley's connectors on a real HTTP server (the health server, with
 * the connectors' routes, as bin/parley.ts starts it), a store and key a "process" owns, and a
 * browser that follows a Connect link through the authorization page to the callback.
 */
export const conversationKey = 'discord:guild-1:channel-1';

export function personActor(id: string, overrides: Partial<Actor> = {}): Actor {
  return { id, name: `person ${id}`, roleIds: [], isAdmin: false, context: 'server', ...overrides };
}

/** The store and key a deployment keeps: two "processes" given the same one share connections. */
export interface SharedState {
  readonly tokens: Keyv;
  readonly links: Keyv;
  readonly audit: AuditLog;
  readonly encryption: AtRestEncryption;
  readonly lock: KeyedLock;
}

export function createSharedState(): SharedState {
  const { logger } = createCapturedLogger();
  const lock = createInProcessLock();
  return {
    tokens: new Keyv(),
    links: new Keyv(),
    audit: createAuditLog({ store: new Keyv(), lock, logger, minimumRetentionDays: undefined }),
    encryption: new AtRestEncryption({
      current: parseEncryptionKey({
        value: randomBytes(32).toString('hex'),
        variable: 'CONNECTOR_TOKENS_KEY',
      }),
    }),
    lock,
  };
}

export interface ParleyUnderTest {
  readonly connectors: Connectors;
  readonly publicUrl: string;
  /** The HTTP server's own address, whatever PUBLIC_URL says. */
  readonly localUrl: string;
  readonly logs: () => string;
  close(): Promise<void>;
}

/** One parley process: its connectors over the shared state, its HTTP server on a free port. */
export async function startParley({
  servers,
  shared,
  standingNow = async () => ({ isAllowed: true }),
  nowMs,
  publicUrl: publicUrlAs,
}: {
  servers: Record<string, unknown>;
  shared: SharedState;
  standingNow?: StandingCheck;
  nowMs?: () => number;
  /** What PUBLIC_URL says, when not the local server's own address (an https one behind a proxy). */
  publicUrl?: string;
}): Promise<ParleyUnderTest> {
  const reading = readToolsFile({
    path: writeToolsFile(servers),
    isDefaultPath: false,
    environment: {},
    parleyVariableNames: new Set(),
    resolvePath: (path) => path,
  });
  if ('problems' in reading) throw new Error(reading.problems.join('\n'));
  const { logger, output } = createCapturedLogger();
  let route: ReturnType<typeof createConnectRoutes> = async () => false;
  const health = await startHealthServer({
    port: 0,
    readiness: async () => ({ isReady: true, checks: {}, reasons: [], warnings: [] }),
    logger,
    routes: [(request, response) => route(request, response)],
  });
  const localUrl = `http://127.0.0.1:${health.port}`;
  const publicUrl = publicUrlAs ?? localUrl;
  const connectors = createConnectors({
    servers: reading.servers,
    store: createConnectionStore({ store: shared.tokens, encryption: shared.encryption }),
    links: createConnectLinks({ store: shared.links, encryption: shared.encryption }),
    questions: createElicitationQuestions({ store: shared.links, encryption: shared.encryption, publicUrl }),
    lock: shared.lock,
    publicUrl,
    audit: shared.audit,
    standingNow,
    clientVersion: 'test',
    ...(nowMs ? { nowMs } : {}),
    logger,
  });
  route = createConnectRoutes({ connectors, logger });
  return {
    connectors,
    publicUrl,
    localUrl,
    logs: output,
    async close() {
      await connectors.close();
      await health.close();
    },
  };
}

/** A tool call's context for `actor`, with what they were told privately collected in `told`. */
export function runContext(actor: Actor, told: string[] = []): ToolRunContext {
  return {
    signal: new AbortController().signal,
    actor,
    conversationKey,
    sources: createSources(),
    notices: [],
    logger: createCapturedLogger().logger,
    tellAskerPrivately: async (text) => {
      told.push(text);
    },
  };
}

/** The link in a private "Connect" message. */
export function linkIn(text: string | undefined): string {
  const match = /(http:\/\/\S+\/connect\/\S+)/.exec(text ?? '');
  if (!match?.[1]) throw new Error(`no Connect link in ${text}`);
  return match[1];
}

/**
 * A browser's round trip: the link's page and its Continue, the authorization page (which signs in
 * at once), the callback.
 */
export async function followLink(
  link: string,
): Promise<{ status: number; text: string; callbackUrl: string | undefined; cookie: string | undefined }> {
  // The link's page first (a preview fetch would stop here), then its Continue button.
  const page = await fetch(link);
  if (page.status !== 200)
    return { status: page.status, text: await page.text(), callbackUrl: undefined, cookie: undefined };
  await page.text();
  const opened = await fetch(link, { method: 'POST', redirect: 'manual' });
  const authorizationPage = opened.headers.get('location');
  const cookie = opened.headers.get('set-cookie')?.split(';')[0];
  if (opened.status !== 303 || !authorizationPage) {
    return { status: opened.status, text: await opened.text(), callbackUrl: undefined, cookie };
  }
  const authorized = await fetch(authorizationPage, { redirect: 'manual' });
  const callbackUrl = authorized.headers.get('location') ?? undefined;
  if (!callbackUrl) return { status: authorized.status, text: await authorized.text(), callbackUrl, cookie };
  const finished = await fetch(callbackUrl, { headers: cookie ? { cookie } : {} });
  return { status: finished.status, text: await finished.text(), callbackUrl, cookie };
}

import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AccessGate } from '../access/access-gate.ts';
import type { PlaceSettingsReader } from '../administration/place-settings.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Logger } from '../log.ts';
import type { Readiness } from '../operations/health.ts';
import type { Store } from '../state/create-store.ts';
import { consoleAddress } from './console-address.ts';
import { createConsoleApp } from './console-app.ts';
import type { ConsoleDeeds } from './console-deeds.ts';
import type { ConsolePerson } from './console-person.ts';
import { createConsoleSessions } from './console-sessions.ts';
import { createDiscordSignIn, type DiscordOAuthSettings } from './discord-sign-in.ts';
import type { OneTimeLinks } from './one-time-links.ts';
import { createSignInLimit } from './sign-in-limit.ts';
import { createSlackSignIn, type SlackOAuthSettings } from './slack-sign-in.ts';

/** The console's settings (CONSOLE_*), as src/config.ts reads them. */
export interface ConsoleSettings {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string | undefined;
  readonly sessionMs: number;
  readonly discord: DiscordOAuthSettings | undefined;
  readonly slack: SlackOAuthSettings | undefined;
}

/** A running console: where it is, a one-time link for someone, and its end. */
export interface RunningConsole {
  /** The address browsers open, with the port it got (CONSOLE_PORT 0: a free one). */
  readonly origin: string;
  /** A one-time sign-in link for this person (`/console`, and the terminal's owner at start). */
  linkFor(person: ConsolePerson): Promise<string>;
  close(): Promise<void>;
}

/** Why the console cannot start, in words for the operator (a refused address, a port in use). */
export class ConsoleStartError extends Error {}

/**
 * Starts the owner's console on its own port: sessions, links and sign-ins in the store's
 * namespaces, the routes of console-app.ts on Node's HTTP server through @hono/node-server.
 * Refuses an address other machines can reach unless CONSOLE_PUBLIC_URL is https.
 */
export async function startConsoleServer({
  settings,
  store,
  deeds,
  access,
  places,
  audit,
  logger,
  links,
  readiness,
  signInAttemptsPerMinute = 10,
  liveFiguresIntervalMs = 10_000,
  now = () => Date.now(),
}: {
  /** The process's readiness, as GET /readyz answers it, for the overview. */
  readiness: () => Promise<Readiness>;
  /** How often the overview's live figures are sent; each asks the platform for the person again. */
  liveFiguresIntervalMs?: number;
  /** Sign-in requests one client address may make a minute (each sign-in takes one or two). */
  signInAttemptsPerMinute?: number;
  settings: ConsoleSettings;
  /** The one-time links `/console` and the terminal hand out, and this console redeems. */
  links: OneTimeLinks;
  store: Pick<Store, 'namespace'>;
  deeds: ConsoleDeeds;
  access: AccessGate;
  places: PlaceSettingsReader;
  audit: AuditLog;
  logger: Logger;
  now?: () => number;
}): Promise<RunningConsole> {
  const address = consoleAddress({ host: settings.host, port: settings.port, publicUrl: settings.publicUrl });
  if (!address.isAllowed) throw new ConsoleStartError(address.problem);
  // The app needs the address the server got (CONSOLE_PORT 0 asks for a free one), so it is made
  // once the server listens; nothing reaches it before.
  let app: Hono | undefined;
  const server = createAdaptorServer({
    fetch: (request, environment) => app?.fetch(request, environment) ?? new Response(null, { status: 503 }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ConsoleStartError(
          `console on CONSOLE_HOST ${settings.host}, CONSOLE_PORT ${settings.port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`,
        ),
      ),
    );
    server.listen(settings.port, settings.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // Port 0 asks for a free port: the origin names the one it got.
  const origin = settings.publicUrl ?? address.origin.replace(/:0$/, `:${port}`);
  app = createConsoleApp({
    origin,
    isSecure: address.isSecure,
    sessions: createConsoleSessions({
      store: store.namespace('console-sessions'),
      lifetimeMs: settings.sessionMs,
      now,
    }),
    sessionLifetimeMs: settings.sessionMs,
    links,
    pendingSignIns: store.namespace('console-sign-ins'),
    discordSignIn:
      settings.discord === undefined
        ? undefined
        : createDiscordSignIn({
            settings: settings.discord,
            redirectUri: `${origin}/sign-in/discord/callback`,
          }),
    slackSignIn:
      settings.slack === undefined
        ? undefined
        : createSlackSignIn({ settings: settings.slack, redirectUri: `${origin}/sign-in/slack/callback` }),
    signInLimit: createSignInLimit({ attempts: signInAttemptsPerMinute, perSeconds: 60 }),
    deeds,
    access,
    places,
    audit,
    logger,
    readiness,
    liveFiguresIntervalMs,
  });
  logger.info({ origin }, 'owner’s console listening');
  return {
    origin,
    linkFor: async (person) => `${origin}/sign-in/link/${await links.issue(person)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

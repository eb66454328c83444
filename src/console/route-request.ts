import type { Context } from 'hono';
import type Keyv from 'keyv';
import type { AccessGate } from '../access/access-gate.ts';
import type { PlaceSettingsReader } from '../administration/place-settings.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Logger } from '../log.ts';
import type { Readiness } from '../operations/health.ts';
import type { ConsoleDeeds } from './console-deeds.ts';
import { consolePage } from './console-layout.ts';
import type { ConsolePlace } from './console-person.ts';
import type { ConsoleSession, ConsoleSessions } from './console-sessions.ts';
import type { DiscordSignIn } from './discord-sign-in.ts';
import type { OneTimeLinks } from './one-time-links.ts';
import type { PlaceStanding } from './place-standing.ts';
import { html } from './safe-html.ts';
import type { SignInLimit } from './sign-in-limit.ts';
import type { SlackSignIn } from './slack-sign-in.ts';

/** Everything the console's routes use, built once by whoever starts it (bin/, or a test). */
export interface ConsoleParts {
  /** The console's address as browsers reach it: `http://127.0.0.1:8090`, or CONSOLE_PUBLIC_URL. */
  readonly origin: string;
  /** Behind https: cookies are Secure. */
  readonly isSecure: boolean;
  readonly sessions: ConsoleSessions;
  readonly sessionLifetimeMs: number;
  readonly links: OneTimeLinks;
  /** OAuth sign-ins under way, by `state` (their PKCE verifiers), for ten minutes. */
  readonly pendingSignIns: Keyv;
  readonly discordSignIn: DiscordSignIn | undefined;
  readonly slackSignIn: SlackSignIn | undefined;
  readonly signInLimit: SignInLimit;
  readonly deeds: ConsoleDeeds;
  readonly access: AccessGate;
  readonly places: PlaceSettingsReader;
  readonly audit: AuditLog;
  readonly logger: Logger;
  /** The process's readiness, as GET /readyz answers it. */
  readonly readiness: () => Promise<Readiness>;
  /** How often the overview's live figures are sent (each time the person's standing is asked again). */
  readonly liveFiguresIntervalMs: number;
}

/** What a route's handler is given once its access has been checked. */
export interface RouteRequest {
  readonly context: Context;
  readonly parts: ConsoleParts;
  /** The signed-in session, when there is one (always, past `signed-in`). */
  readonly session: ConsoleSession | undefined;
  /** For place routes: the place and the person's standing there now (present, or an admin). */
  readonly place: ConsolePlace | undefined;
  readonly standing: Exclude<PlaceStanding, { kind: 'absent' }> | undefined;
  /** A POST's form fields, read once and checked for the CSRF token. */
  readonly form: Readonly<Record<string, string>>;
}

export type RouteHandler = (request: RouteRequest) => Promise<Response> | Response;

/** A page saying no, with the status; never whether the place exists or who else may. */
export function refusalPage(context: Context, status: 400 | 403 | 404 | 429, text: string): Response {
  return context.html(
    consolePage({
      title: 'Not here',
      body: html`<p role="alert">${text}</p><p><a href="/">Back to the start</a></p>`,
    }),
    status,
  );
}

import type { Context } from 'hono';
import { z } from 'zod';
import { chartLibrary, spendChartScript } from './chart-assets.ts';
import { clientAddressOf } from './client-address.ts';
import { consolePage } from './console-layout.ts';
import type { ConsolePerson } from './console-person.ts';
import type { ConsoleRouteName } from './console-routes.ts';
import { consoleStylesheet } from './console-stylesheet.ts';
import { liveFiguresScript } from './live-figures.ts';
import { type PickablePlace, placePickerBody } from './place-picker-page.ts';
import { standingAt } from './place-standing.ts';
import { type ConsoleParts, type RouteHandler, refusalPage } from './route-request.ts';
import { html } from './safe-html.ts';
import {
  clearSessionCookie,
  takeSignInState,
  writeSessionCookie,
  writeSignInState,
} from './session-cookie.ts';

/** The most places the picker asks the platform about: each is a lookup of the person there now. */
const maxPlacesAsked = 25;

async function signIn(context: Context, parts: ConsoleParts, person: ConsolePerson): Promise<Response> {
  const session = await parts.sessions.start(person);
  writeSessionCookie({
    context,
    isSecure: parts.isSecure,
    sessionId: session.id,
    maxAgeSeconds: Math.floor(parts.sessionLifetimeMs / 1000),
  });
  parts.logger.info(
    { platform: person.platform, userId: person.userId, with: person.signedInWith },
    'signed in to the console',
  );
  return context.redirect('/', 303);
}

async function mayTrySigningIn(context: Context, parts: ConsoleParts): Promise<boolean> {
  return parts.signInLimit.mayTry(clientAddressOf(context));
}

/** What a sign-in under way keeps, by its `state`: Discord's PKCE verifier, or Slack's nonce. */
const pendingSignInSchema = z.object({ codeVerifier: z.string().optional(), nonce: z.string().optional() });
type PendingSignIn = z.infer<typeof pendingSignInSchema>;

/** Sends the browser to Discord or Slack, remembering the sign-in for ten minutes. */
async function sendToProvider(
  context: Context,
  parts: ConsoleParts,
  state: string,
  pending: PendingSignIn,
  url: URL,
): Promise<Response> {
  await parts.pendingSignIns.set(state, pending, 600_000);
  writeSignInState(context, parts.isSecure, state);
  return context.redirect(url.toString(), 302);
}

/**
 * The provider's return: the `state` must be the one this browser was sent off with, and unused
 * (RFC 6749 §10.12), before the code is exchanged.
 */
async function finishSignIn(
  context: Context,
  parts: ConsoleParts,
  providerName: string,
  finish: (code: string, pending: PendingSignIn) => Promise<ConsolePerson>,
): Promise<Response> {
  if (!(await mayTrySigningIn(context, parts))) return refusalPage(context, 429, tooManyTries);
  const state = context.req.query('state');
  const code = context.req.query('code');
  const expectedState = takeSignInState(context, parts.isSecure);
  const stored =
    state === undefined || state !== expectedState ? undefined : await parts.pendingSignIns.get(state);
  const pending = pendingSignInSchema.safeParse(stored);
  if (
    state === undefined ||
    code === undefined ||
    !pending.success ||
    !(await parts.pendingSignIns.delete(state))
  ) {
    return refusalPage(context, 400, 'That sign-in was not started here, or took too long. Try again.');
  }
  try {
    return await signIn(context, parts, await finish(code, pending.data));
  } catch (error) {
    parts.logger.warn({ err: error, provider: providerName }, 'a sign-in to the console failed');
    return refusalPage(context, 400, `${providerName} did not confirm that sign-in. Try again.`);
  }
}

const tooManyTries = 'Too many sign-in attempts from here; wait a minute and try again.';

/** The pages before and around signing in: who you are, and where you may go. */
export const signInHandlers = {
  async home({ context, parts, session }) {
    if (session === undefined) {
      const discord =
        parts.discordSignIn === undefined
          ? ''
          : html`<p><a class="button" href="/sign-in/discord">Sign in with Discord</a></p>`;
      const slack =
        parts.slackSignIn === undefined
          ? ''
          : html`<p><a class="button" href="/sign-in/slack">Sign in with Slack</a></p>`;
      return context.html(
        consolePage({
          title: 'Sign in',
          body: html`${discord}${slack}<p>Or ask parley for a one-time link: <code>/console</code> in a server where parley is answers privately with one (it works once, for ten minutes). In the terminal, <code>npm start</code> prints one.</p>`,
        }),
      );
    }
    // Only where parley is (known without a request), then each asked of the platform.
    const candidates = session.person.places
      .filter((place) => parts.deeds.isPresentIn(place))
      .slice(0, maxPlacesAsked);
    const standings = await Promise.all(
      candidates.map(async (place) => ({
        place,
        standing: await standingAt({
          deeds: parts.deeds,
          access: parts.access,
          person: session.person,
          place,
          isRecorded: false,
        }),
      })),
    );
    const pickable: PickablePlace[] = standings.flatMap(({ place, standing }) =>
      standing.kind === 'absent' ? [] : [{ place, isAdmin: standing.kind === 'admin' }],
    );
    return context.html(
      consolePage({
        title: 'Your places',
        body: placePickerBody(pickable),
        frame: { person: session.person, csrfToken: session.csrfToken },
      }),
    );
  },
  stylesheet({ context }) {
    return context.body(consoleStylesheet, 200, { 'content-type': 'text/css; charset=utf-8' });
  },
  chartLibrary({ context }) {
    return context.body(chartLibrary().script, 200, { 'content-type': 'text/javascript; charset=utf-8' });
  },
  chartLibraryStyles({ context }) {
    return context.body(chartLibrary().styles, 200, { 'content-type': 'text/css; charset=utf-8' });
  },
  liveFigures({ context }) {
    return context.body(liveFiguresScript, 200, { 'content-type': 'text/javascript; charset=utf-8' });
  },
  spendChart({ context }) {
    return context.body(spendChartScript, 200, { 'content-type': 'text/javascript; charset=utf-8' });
  },
  // A link opens a page with a button, and only its POST signs in: a link preview fetching the
  // address (a chat unfurling it) cannot use it up.
  linkSignInPage({ context }) {
    const token = context.req.param('token') ?? '';
    return context.html(
      consolePage({
        title: 'Sign in with your link',
        body: html`<form method="post" action="/sign-in/link"><input type="hidden" name="token" value="${token}"><button type="submit">Sign in</button></form>`,
      }),
    );
  },
  async linkSignIn({ context, parts, form }) {
    if (!(await mayTrySigningIn(context, parts))) return refusalPage(context, 429, tooManyTries);
    const person = await parts.links.redeem(form.token ?? '');
    if (person === undefined) {
      return refusalPage(
        context,
        403,
        'That link was used already or is older than ten minutes. Ask for a new one with /console.',
      );
    }
    return signIn(context, parts, person);
  },
  async discordSignIn({ context, parts }) {
    const signInWith = parts.discordSignIn;
    if (signInWith === undefined)
      return refusalPage(context, 404, 'Sign-in with Discord is not set up here.');
    if (!(await mayTrySigningIn(context, parts))) return refusalPage(context, 429, tooManyTries);
    const pending = signInWith.begin();
    return sendToProvider(context, parts, pending.state, { codeVerifier: pending.codeVerifier }, pending.url);
  },
  async discordCallback({ context, parts }) {
    const signInWith = parts.discordSignIn;
    if (signInWith === undefined)
      return refusalPage(context, 404, 'Sign-in with Discord is not set up here.');
    return finishSignIn(context, parts, 'Discord', async (code, pending) =>
      signInWith.finish({ code, codeVerifier: pending.codeVerifier ?? '' }),
    );
  },
  async slackSignIn({ context, parts }) {
    const signInWith = parts.slackSignIn;
    if (signInWith === undefined) return refusalPage(context, 404, 'Sign-in with Slack is not set up here.');
    if (!(await mayTrySigningIn(context, parts))) return refusalPage(context, 429, tooManyTries);
    const pending = signInWith.begin();
    return sendToProvider(context, parts, pending.state, { nonce: pending.nonce }, pending.url);
  },
  async slackCallback({ context, parts }) {
    const signInWith = parts.slackSignIn;
    if (signInWith === undefined) return refusalPage(context, 404, 'Sign-in with Slack is not set up here.');
    return finishSignIn(context, parts, 'Slack', async (code, pending) =>
      signInWith.finish({ code, nonce: pending.nonce ?? '' }),
    );
  },
  async signOut({ context, parts, session }) {
    if (session !== undefined) await parts.sessions.end(session.id);
    clearSessionCookie(context, parts.isSecure);
    return context.redirect('/', 303);
  },
} satisfies Partial<Record<ConsoleRouteName, RouteHandler>>;

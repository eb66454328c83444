import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { consolePage } from './console-layout.ts';
import { type ConsoleRouteName, consoleRoutes } from './console-routes.ts';
import { isCsrfTokenOf } from './console-sessions.ts';
import { placeHandlers } from './place-handlers.ts';
import { standingAt } from './place-standing.ts';
import { type ConsoleParts, type RouteHandler, refusalPage } from './route-request.ts';
import { html } from './safe-html.ts';
import { securityHeaders } from './security-headers.ts';
import { readSessionCookie } from './session-cookie.ts';
import { signInHandlers } from './sign-in-handlers.ts';

/**
 * The console as a Hono app: every route of `consoleRoutes`, each behind the check its access
 * names, every POST behind the session's CSRF token (and a same-origin Origin header, when the
 * browser sends one), every answer with the strict headers. Handlers never see a request their
 * route's access did not let through.
 */
export function createConsoleApp(parts: ConsoleParts): Hono {
  const app = new Hono();
  app.use('*', securityHeaders({ isSecure: parts.isSecure }));
  app.use(
    '*',
    bodyLimit({
      maxSize: 64 * 1024,
      onError: (context) => refusalPage(context, 400, 'That form is too large.'),
    }),
  );
  const handlers: Record<ConsoleRouteName, RouteHandler> = { ...signInHandlers, ...placeHandlers };
  for (const [name, route] of Object.entries(consoleRoutes) as [
    ConsoleRouteName,
    (typeof consoleRoutes)[ConsoleRouteName],
  ][]) {
    const handler = handlers[name];
    app.on(route.method, route.path, async (context) => {
      try {
        return await guarded({ context, parts, access: route.access, method: route.method, handler });
      } catch (error) {
        parts.logger.error({ err: error, route: name }, 'a console page failed');
        return context.html(
          consolePage({
            title: 'Something went wrong',
            body: html`<p role="alert">That did not work; the details are in parley's log.</p>`,
          }),
          500,
        );
      }
    });
  }
  app.notFound((context) => refusalPage(context, 404, 'There is no such page.'));
  return app;
}

async function guarded({
  context,
  parts,
  access,
  method,
  handler,
}: {
  context: Context;
  parts: ConsoleParts;
  access: (typeof consoleRoutes)[ConsoleRouteName]['access'];
  method: 'GET' | 'POST';
  handler: RouteHandler;
}): Promise<Response> {
  const session = await parts.sessions.find(readSessionCookie(context, parts.isSecure));
  let form: Record<string, string> = {};
  if (method === 'POST') {
    const origin = context.req.header('origin');
    if (origin !== undefined && origin !== new URL(parts.origin).origin) {
      return refusalPage(context, 403, 'That form came from another site.');
    }
    form = await readForm(context);
    // The link sign-in has no session yet: its one-time token is its proof.
    if (access !== 'anyone' && (session === undefined || !isCsrfTokenOf(session, form.csrf))) {
      return refusalPage(context, 403, 'That form has expired. Open the page again and retry.');
    }
  }
  if (access === 'anyone')
    return handler({ context, parts, session, place: undefined, standing: undefined, form });
  if (session === undefined) return context.redirect('/', 303);
  if (access === 'signed-in')
    return handler({ context, parts, session, place: undefined, standing: undefined, form });
  const place = {
    platform: context.req.param('platform') ?? '',
    workspace: context.req.param('workspace') ?? '',
  };
  const standing = await standingAt({
    deeds: parts.deeds,
    access: parts.access,
    person: session.person,
    place,
    isRecorded: access === 'admin',
  });
  if (standing.kind === 'absent' || (access === 'admin' && standing.kind !== 'admin')) {
    return refusalPage(
      context,
      403,
      access === 'admin'
        ? 'Only an admin of that server can see this page.'
        : 'You are not a member of that server.',
    );
  }
  return handler({ context, parts, session, place, standing, form });
}

async function readForm(context: Context): Promise<Record<string, string>> {
  const type = context.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data'))
    return {};
  const body = await context.req.parseBody();
  return Object.fromEntries(
    Object.entries(body).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );
}

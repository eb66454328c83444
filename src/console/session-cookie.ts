import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

/**
 * The session cookie: HttpOnly (no script reads it, and the console has none), SameSite=Lax (a
 * link from a chat opens the console signed in; every change is a POST, which Lax never sends
 * from another site, and which needs the session's CSRF token besides), Secure and `__Host-` behind
 * https. It lasts as long as the session.
 */
export function sessionCookieName(isSecure: boolean): string {
  return isSecure ? '__Host-parley-console' : 'parley-console';
}

export function readSessionCookie(context: Context, isSecure: boolean): string | undefined {
  return getCookie(context, sessionCookieName(isSecure));
}

export function writeSessionCookie({
  context,
  isSecure,
  sessionId,
  maxAgeSeconds,
}: {
  context: Context;
  isSecure: boolean;
  sessionId: string;
  maxAgeSeconds: number;
}): void {
  setCookie(context, sessionCookieName(isSecure), sessionId, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: isSecure,
    path: '/',
    maxAge: maxAgeSeconds,
  });
}

export function clearSessionCookie(context: Context, isSecure: boolean): void {
  deleteCookie(context, sessionCookieName(isSecure), { path: '/', secure: isSecure });
}

/** The OAuth `state` of a sign-in under way, bound to this browser for ten minutes. */
export const signInStateCookie = 'parley-console-sign-in';

export function writeSignInState(context: Context, isSecure: boolean, state: string): void {
  setCookie(context, signInStateCookie, state, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: isSecure,
    path: '/sign-in',
    maxAge: 600,
  });
}

export function takeSignInState(context: Context, isSecure: boolean): string | undefined {
  const state = getCookie(context, signInStateCookie);
  deleteCookie(context, signInStateCookie, { path: '/sign-in', secure: isSecure });
  return state;
}

import type { MiddlewareHandler } from 'hono';

/**
 * A strict Content-Security-Policy: scripts and styles only from the console's own files (the chart),
 * nothing inline,
 * forms only to itself, never framed. Pages are never cached (they show settings and spend), and no
 * address leaves for another site in a Referer (a one-time link's token is in its path).
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function securityHeaders({ isSecure }: { isSecure: boolean }): MiddlewareHandler {
  return async (context, next) => {
    await next();
    const headers = context.res.headers;
    headers.set('content-security-policy', contentSecurityPolicy);
    headers.set('x-content-type-options', 'nosniff');
    headers.set('x-frame-options', 'DENY');
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the
    // console's own forms, which the Origin check must refuse.
    headers.set('referrer-policy', 'same-origin');
    headers.set('cross-origin-opener-policy', 'same-origin');
    headers.set('cache-control', 'no-store');
    if (isSecure) headers.set('strict-transport-security', 'max-age=31536000');
  };
}

import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The address a request came from, for the sign-in limit. Behind a proxy this is the proxy's: the
 * limit then holds for everyone together, which errs on the safe side. Forwarded headers are not
 * believed, since anyone can send them.
 */
export function clientAddressOf(context: Context): string {
  try {
    return getConnInfo(context).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

import { isIP } from 'node:net';

/** Where the console listens and how browsers reach it, or why it must not start. */
export type ConsoleAddress =
  | { readonly isAllowed: true; readonly origin: string; readonly isSecure: boolean }
  | { readonly isAllowed: false; readonly problem: string };

const loopbackNames = new Set(['localhost', '127.0.0.1', '::1']);

/** Whether a host name or address reaches only this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (loopbackNames.has(bare)) return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * An admin panel that anyone on a network can reach must be behind https: its session cookie and
 * the one-time links would otherwise travel in the clear. So the console binds 127.0.0.1 unless
 * CONSOLE_HOST says otherwise, and any other address needs an https CONSOLE_PUBLIC_URL (a TLS proxy
 * in front). With https the cookie is Secure.
 */
export function consoleAddress({
  host,
  port,
  publicUrl,
}: {
  host: string;
  port: number;
  publicUrl: string | undefined;
}): ConsoleAddress {
  const isHttps = publicUrl?.startsWith('https://') === true;
  if (!isLoopbackHost(host) && !isHttps) {
    return {
      isAllowed: false,
      problem: `CONSOLE_HOST ${host} is reachable from other machines, so the console needs CONSOLE_PUBLIC_URL with https (a TLS proxy in front of it); or set CONSOLE_HOST to 127.0.0.1`,
    };
  }
  const shownHost = isIP(host) === 6 ? `[${host}]` : host;
  return { isAllowed: true, origin: publicUrl ?? `http://${shownHost}:${port}`, isSecure: isHttps };
}

import { createRequire } from 'node:module';
import type { RESTOptions } from 'discord.js';

/**
 * An HTTP agent of discord.js's own undici, for its REST client. Loading undici 8 (Slack's Socket
 * Mode and the openai SDK depend on it) installs undici 8's agent as the process-wide dispatcher
 * that older undici versions fall back to; @discordjs/rest (undici 6) then hands its multipart
 * uploads to undici 8, which refuses them ("body must be a FormData created by this undici package
 * instance") and every file upload fails. With an agent of its own, discord.js never touches the
 * global one.
 */
export function discordRestAgent(): RESTOptions['agent'] {
  // The undici that @discordjs/rest itself resolves, whatever version the rest of parley has.
  const requireFromRest = createRequire(createRequire(import.meta.url).resolve('@discordjs/rest'));
  const undici = requireFromRest('undici') as { Agent: new () => NonNullable<RESTOptions['agent']> };
  return new undici.Agent();
}

/**
 * Which 429s discord.js throws instead of waiting out: a thread rename's. Its Retry-After can run to
 * ten minutes (see thread-renames.ts), and a /title waiting that long would hold up its conversation;
 * thrown, it becomes "try again in n minutes".
 */
export function isRenameRateLimit(rateLimit: { method: string; route: string }): boolean {
  return rateLimit.method.toUpperCase() === 'PATCH' && rateLimit.route === '/channels/:id';
}

import { createRequire } from 'node:module';
import type { ClientOptions } from 'discord.js';

/** The pool type @discordjs/rest takes (its own undici's Dispatcher). */
type RestAgent = NonNullable<NonNullable<ClientOptions['rest']>['agent']>;

/**
 * The connection pool for discord.js's REST calls, from the undici that @discordjs/rest itself bundles.
 *
 * Without it, @discordjs/rest sends through undici's process-wide default dispatcher, and which undici
 * registers that default depends on which library is imported first: @slack/socket-mode and openai
 * bring undici 8, whose dispatcher refuses the FormData that @discordjs/rest (undici 6) builds for
 * uploads ("body must be a FormData created by this undici package instance"), so every message with
 * a file failed whenever the Slack adapter was loaded before the Discord one. A pool of its own makes
 * uploads independent of import order.
 */
export function createDiscordRestDispatcher(): RestAgent {
  const requireFromDiscordRest = createRequire(import.meta.resolve('@discordjs/rest'));
  const { Agent } = requireFromDiscordRest('undici') as { Agent: new () => RestAgent };
  return new Agent();
}

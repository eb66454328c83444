import type { Client } from 'discord.js';
import type { CommandServices } from '../../commands/define-command.ts';
import type { Config } from '../../src/config.ts';
import type { RequestScheduler } from '../../src/delivery/request-scheduler.ts';
import type { Logger } from '../../src/log.ts';

/** What the Discord event handlers share for the life of one logged-in client. */
export interface DiscordAdapterContext {
  readonly client: Client;
  readonly services: CommandServices;
  readonly discord: NonNullable<Config['discord']>;
  /** The bot-wide request budget every channel call waits on. */
  readonly scheduler: RequestScheduler;
  readonly maxImageBytes: number;
  readonly logger: Logger;
}

/** The bot's own user id once logged in; empty before READY. */
export function botUserIdOf(context: DiscordAdapterContext): string {
  return context.client.user?.id ?? '';
}

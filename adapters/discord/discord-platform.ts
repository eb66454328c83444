import type { PlatformAdapter } from '../../commands/platform-adapter.ts';
import { type DiscordSettings, discordConfig } from './discord-config.ts';
import { discordLimits } from './discord-limits.ts';

/** parley on Discord, as bin/parley.ts starts it. */
export const discordPlatform: PlatformAdapter<DiscordSettings> = {
  name: 'discord',
  configSchema: discordConfig,
  // discord.js is loaded only when parley runs on Discord: a Slack-only process never holds it.
  start: async ({ services, settings, config, logger, coordination, store }) =>
    (await import('./discord-adapter.ts')).startDiscordAdapter({
      services,
      discord: settings,
      maxImageBytes: config.images.maxInputBytes,
      logger,
      eventDeduper: coordination.eventDeduper,
      sharedBudget: coordination.createSharedWindow?.({
        name: 'discord-rest',
        limit: discordLimits.schedulerRequestsPerSecond,
        windowMs: 1_000,
      }),
      shutdownGraceMs: config.shutdownGraceMs,
      // What a restarted process catches up from: the channels where parley was active.
      watermarkStore: store.namespace('discord-catch-up'),
      notifyAfterMs: config.notifyAfterMs,
    }),
};

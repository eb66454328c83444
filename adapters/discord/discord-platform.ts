import type { PlatformAdapter } from '../../commands/platform-adapter.ts';
import { startDiscordAdapter } from './discord-adapter.ts';
import { type DiscordSettings, discordConfig } from './discord-config.ts';
import { discordLimits } from './discord-limits.ts';

/** parley on Discord, as bin/parley.ts starts it. */
export const discordPlatform: PlatformAdapter<DiscordSettings> = {
  name: 'discord',
  configSchema: discordConfig,
  start: ({ services, settings, config, logger, coordination }) =>
    startDiscordAdapter({
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
      notifyAfterMs: config.notifyAfterMs,
    }),
};

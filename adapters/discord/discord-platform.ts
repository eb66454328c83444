import type { PlatformAdapter } from '../../commands/platform-adapter.ts';
import { startDiscordAdapter } from './discord-adapter.ts';
import { type DiscordSettings, discordConfig } from './discord-config.ts';

/** parley on Discord, as bin/parley.ts starts it. */
export const discordPlatform: PlatformAdapter<DiscordSettings> = {
  name: 'discord',
  configSchema: discordConfig,
  start: ({ services, settings, config, logger }) =>
    startDiscordAdapter({ services, discord: settings, maxImageBytes: config.images.maxInputBytes, logger }),
};

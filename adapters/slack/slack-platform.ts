import type { PlatformAdapter } from '../../commands/platform-adapter.ts';
import { startSlackAdapter } from './slack-adapter.ts';
import { type SlackSettings, slackConfig } from './slack-config.ts';

/** parley on Slack, as bin/parley.ts starts it. */
export const slackPlatform: PlatformAdapter<SlackSettings> = {
  name: 'slack',
  configSchema: slackConfig,
  start: ({ services, settings, config, logger, coordination }) =>
    startSlackAdapter({
      services,
      slack: settings,
      host: settings.host,
      maxImageBytes: config.images.maxInputBytes,
      logger,
      deduper: coordination.eventDeduper,
    }),
};

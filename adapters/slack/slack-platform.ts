import type { PlatformAdapter } from '../../commands/platform-adapter.ts';
import { failOpen } from '../../src/delivery/fail-open-limit.ts';
import { type SlackSettings, slackConfig } from './slack-config.ts';
import { createSlackOutbound } from './slack-outbound.ts';

/** parley on Slack, as bin/parley.ts starts it. */
export const slackPlatform: PlatformAdapter<SlackSettings> = {
  name: 'slack',
  configSchema: slackConfig,
  // Bolt and its web server are loaded only when parley runs on Slack: a Discord-only process never holds them.
  start: async ({ services, settings, config, logger, coordination, store }) => {
    const createSharedBucket = coordination.createSharedBucket;
    const { startSlackAdapter } = await import('./slack-adapter.ts');
    return startSlackAdapter({
      services,
      slack: settings,
      host: settings.host,
      maxImageBytes: config.images.maxInputBytes,
      logger,
      deduper: coordination.eventDeduper,
      // OAuth installs, sealed, in the bot's store; a token refresh holds the shared record lock.
      ...(settings.oauth === undefined
        ? {}
        : {
            installationKeyv: store.namespace('slack-installations'),
            installationLock: coordination.recordLock,
          }),
      // Slack counts each method per app and workspace, not per process: every process spends one bucket.
      ...(createSharedBucket
        ? {
            outbound: createSlackOutbound({
              createBucket: (method, size) =>
                failOpen({
                  limit: createSharedBucket({ ...size, name: `slack-${method}` }),
                  logger,
                  what: `the shared Slack budget of ${method}`,
                }),
            }),
          }
        : {}),
    });
  },
};

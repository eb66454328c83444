import { z } from 'zod';
import { defineEnvironmentFragment } from '../../src/environment/environment-fragment.ts';
import {
  commaList,
  document,
  httpUrl,
  optionalText,
  section,
} from '../../src/environment/setting-schemas.ts';

/** The variables of the Discord adapter; DISCORD_TOKEN turns it on. */
const discordVariables = z.object(
  section('Discord', {
    DISCORD_TOKEN: document(optionalText, {
      description: 'The bot token; setting it runs parley on Discord.',
      typeText: 'secret text',
    }),
    DISCORD_APPLICATION_ID: document(
      optionalText.pipe(
        z
          .string()
          .regex(/^\d{17,20}$/, 'must be the numeric application id')
          .optional(),
      ),
      {
        description: 'The application id.',
        typeText: 'numeric id',
        defaultText: 'taken from the READY event',
      },
    ),
    DISCORD_GUILD_IDS: document(
      commaList.pipe(z.array(z.string().regex(/^\d{17,20}$/, 'must be numeric guild ids, comma-separated'))),
      {
        description: 'Register slash commands in these guilds (instant) instead of globally (up to an hour).',
        typeText: 'comma-separated ids',
      },
    ),
    DISCORD_REPLY_ALL_CHANNEL_IDS: document(commaList, {
      description: 'Channels where parley answers every message, not only mentions.',
      typeText: 'comma-separated ids',
    }),
    DISCORD_REPLY_MODE: document(
      z.enum(['thread', 'inline', 'all'], { error: 'must be thread, inline or all' }).default('inline'),
      {
        description:
          'Where parley answers a mention in a server channel: thread opens a public thread from the message and answers there (later messages in it need no mention), inline answers in the channel, all answers every message of the channel. /config changes it per channel.',
      },
    ),
    DISCORD_THREAD_ARCHIVE_MINUTES: document(
      z.coerce
        .number({ error: 'must be 60, 1440, 4320 or 10080' })
        .pipe(
          z.union([z.literal(60), z.literal(1440), z.literal(4320), z.literal(10080)], {
            error: 'must be 60, 1440, 4320 or 10080',
          }),
        )
        .default(1440),
      {
        description:
          'How long a thread parley opened stays in the channel list without activity, in minutes; Discord allows 60, 1440, 4320 or 10080.',
      },
    ),
    DISCORD_API_URL: document(
      httpUrl({ example: 'https://discord.com/api' }).default('https://discord.com/api'),
      {
        description:
          'REST base URL; the gateway address is asked from it. Change only for a proxy or a local fake.',
        typeText: 'http(s) URL',
      },
    ),
  }),
);

/** What the Discord adapter runs with; there is none without a token. */
export interface DiscordSettings {
  readonly token: string;
  readonly applicationId: string | undefined;
  readonly guildIds: readonly string[];
  readonly replyAllChannelIds: readonly string[];
  /** Where a mention in a server channel is answered, unless /config says otherwise. */
  readonly replyMode: 'thread' | 'inline' | 'all';
  /** The auto-archive duration of threads parley opens, in minutes. */
  readonly threadArchiveMinutes: 60 | 1440 | 4320 | 10080;
  readonly apiUrl: string;
}

export const discordConfig = defineEnvironmentFragment({
  schema: discordVariables,
  isService: true,
  settingsOf: (values): DiscordSettings | undefined =>
    values.DISCORD_TOKEN
      ? {
          token: values.DISCORD_TOKEN,
          applicationId: values.DISCORD_APPLICATION_ID,
          guildIds: values.DISCORD_GUILD_IDS,
          replyAllChannelIds: values.DISCORD_REPLY_ALL_CHANNEL_IDS,
          replyMode: values.DISCORD_REPLY_MODE,
          threadArchiveMinutes: values.DISCORD_THREAD_ARCHIVE_MINUTES,
          apiUrl: values.DISCORD_API_URL,
        }
      : undefined,
  secretsOf: (values) => [values.DISCORD_TOKEN],
});

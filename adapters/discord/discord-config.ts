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
          apiUrl: values.DISCORD_API_URL,
        }
      : undefined,
  secretsOf: (values) => [values.DISCORD_TOKEN],
});

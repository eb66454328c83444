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
const discordVariables = z
  .object(
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
        commaList.pipe(
          z.array(z.string().regex(/^\d{17,20}$/, 'must be numeric guild ids, comma-separated')),
        ),
        {
          description:
            'Register slash commands in these guilds (instant) instead of globally (up to an hour).',
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
      DISCORD_THREAD_FORUMS: document(
        commaList.pipe(
          z.array(
            z
              .string()
              .regex(
                /^\d{17,20}=\d{17,20}$/,
                'must be channel_id=forum_id pairs, comma-separated (a text channel, then the forum or media channel its threads go to)',
              )
              .transform((pair) => pair.split('=') as [string, string]),
          ),
        ),
        {
          description:
            'Open the threads of a text channel (thread mode, and Ask parley about this) as posts in a forum or media channel instead of threads on the message: pairs of channel_id=forum_id. The post quotes the question and links to the message, and parley answers in it and points to it.',
          typeText: 'comma-separated id=id pairs',
        },
      ),
      DISCORD_FORUM_TAGS: document(commaList, {
        description:
          'Tags parley applies to the forum and media posts it opens, by name (not case-sensitive): those the forum has are applied, at most 5. A forum that requires a tag gets no post without one; parley then answers in the channel and says why.',
        typeText: 'comma-separated tag names',
      }),
      DISCORD_NOTIFY_WITH: document(
        z.enum(['mention', 'new-message'], { error: 'must be mention or new-message' }).default('mention'),
        {
          description:
            'How a reply slower than NOTIFY_AFTER_S tells its asker it is done: mention posts one short line that pings the asker alone, under the answer; new-message posts an answer given in a thread again as a fresh message (which notifies the thread) and removes the edited one, and pings elsewhere.',
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
      DISCORD_SHARD_COUNT: document(
        optionalText.pipe(
          z
            .string()
            .regex(/^(auto|[1-9]\d*)$/, 'must be auto or a whole number of at least 1')
            .transform((value) => (value === 'auto' ? ('auto' as const) : Number(value)))
            .optional(),
        ),
        {
          description:
            'How many gateway shards the whole bot runs (Discord requires sharding from 2,500 servers a connection). auto asks Discord how many it recommends and runs them all in this process; a number splits them between processes with DISCORD_SHARD_IDS.',
          typeText: 'auto or a whole number',
          defaultText: 'one shard (no sharding)',
        },
      ),
      DISCORD_SHARD_IDS: document(
        commaList.pipe(
          z.array(
            z
              .string()
              .regex(/^\d+$/, 'must be shard numbers from 0, comma-separated')
              .transform((value) => Number(value)),
          ),
        ),
        {
          description:
            'The shards this process runs, from 0 to DISCORD_SHARD_COUNT - 1 (e.g. 0,1 in one process and 2,3 in another); needs a numeric DISCORD_SHARD_COUNT.',
          typeText: 'comma-separated numbers',
          defaultText: 'every shard of DISCORD_SHARD_COUNT',
        },
      ),
    }),
  )
  .superRefine((values, context) => {
    if (values.DISCORD_SHARD_IDS.length === 0) return;
    if (typeof values.DISCORD_SHARD_COUNT !== 'number') {
      context.addIssue({
        code: 'custom',
        path: ['DISCORD_SHARD_IDS'],
        message: 'needs DISCORD_SHARD_COUNT set to the number of shards of the whole bot (not auto)',
      });
      return;
    }
    const outside = values.DISCORD_SHARD_IDS.filter((id) => id >= (values.DISCORD_SHARD_COUNT as number));
    if (outside.length > 0) {
      context.addIssue({
        code: 'custom',
        path: ['DISCORD_SHARD_IDS'],
        message: `${outside.join(', ')} not below DISCORD_SHARD_COUNT ${values.DISCORD_SHARD_COUNT}: shards are numbered from 0`,
      });
    }
  });

/**
 * Which gateway shards this process runs, as discord.js takes them: 'auto' (Discord's recommended
 * count, all here), or the ids and the whole bot's count.
 */
export type DiscordSharding = 'auto' | { readonly shardIds: readonly number[]; readonly shardCount: number };

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
  /** The forum or media channel whose posts hold the threads of a text channel, by channel id. */
  readonly threadForumIds: ReadonlyMap<string, string>;
  /** Names of the forum tags parley applies to the posts it opens. */
  readonly forumTagNames: readonly string[];
  /** How a slow reply tells its asker it is done: a ping, or in a thread the answer posted afresh. */
  readonly notifyWith: 'mention' | 'new-message';
  readonly apiUrl: string;
  /** Undefined: one shard, no sharding. */
  readonly sharding: DiscordSharding | undefined;
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
          threadForumIds: new Map(values.DISCORD_THREAD_FORUMS),
          forumTagNames: values.DISCORD_FORUM_TAGS,
          notifyWith: values.DISCORD_NOTIFY_WITH,
          apiUrl: values.DISCORD_API_URL,
          sharding: shardingOf(values.DISCORD_SHARD_COUNT, values.DISCORD_SHARD_IDS),
        }
      : undefined,
  secretsOf: (values) => [values.DISCORD_TOKEN],
});

function shardingOf(count: 'auto' | number | undefined, ids: readonly number[]): DiscordSharding | undefined {
  if (count === undefined) return undefined;
  if (count === 'auto') return 'auto';
  return {
    shardIds: ids.length > 0 ? [...new Set(ids)] : Array.from({ length: count }, (_, id) => id),
    shardCount: count,
  };
}

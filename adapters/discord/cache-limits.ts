import { type ClientOptions, Options } from 'discord.js';

/**
 * What discord.js keeps of what it sees, cut to what parley reads. parley never reads a cached
 * message: it answers the message an event or an interaction carries, edits its own by id and
 * fetches history when it needs it; yet by default discord.js keeps 200 messages in every channel,
 * never swept (at 500 busy channels, 100,000 messages). Nor does it read reactions, presences,
 * voice, stage, invites, bans, emojis, stickers or scheduled events. It reads guilds and channels
 * (permissions, threads), roles, and its own member (permissions in a channel), which stay; other
 * members and users come with the events that name them, and only the most recent are kept.
 */
export function cacheLimits(): Pick<ClientOptions, 'makeCache' | 'sweepers'> {
  return {
    makeCache: Options.cacheWithLimits({
      ...Options.DefaultMakeCacheSettings,
      MessageManager: 0,
      ReactionManager: 0,
      ReactionUserManager: 0,
      PresenceManager: 0,
      VoiceStateManager: 0,
      StageInstanceManager: 0,
      GuildInviteManager: 0,
      GuildBanManager: 0,
      GuildEmojiManager: 0,
      GuildStickerManager: 0,
      GuildScheduledEventManager: 0,
      ThreadMemberManager: 0,
      GuildMemberManager: {
        maxSize: 200,
        keepOverLimit: (member) => member.id === member.client.user.id,
      },
      UserManager: {
        maxSize: 1_000,
        keepOverLimit: (user) => user.id === user.client.user.id,
      },
    }),
    sweepers: {
      ...Options.DefaultSweeperSettings,
      // Archived threads, as by default; members and users beyond the bot's own, hourly.
      guildMembers: { interval: 3_600, filter: () => (member) => member.id !== member.client.user.id },
      users: { interval: 3_600, filter: () => (user) => user.id !== user.client.user.id },
    },
  };
}

import type { SnowflakeGenerator } from './snowflake.ts';
import { createWorld, type FakeChannel, type FakeGuild, type FakeUser, type World } from './world.ts';

/** What the fake has at start: the bot, one person, one guild with text channels and a thread. */
export interface StartingWorld {
  world: World;
  /** `alice`, who acts when a test names nobody. */
  user: FakeUser;
  guild: FakeGuild;
  /** `general`, `random`, then `channel-3`, ... */
  textChannels: FakeChannel[];
  /** A public thread in `general`. */
  thread: FakeChannel;
}

/** Builds the starting world; `textChannelCount` defaults to 2 and is at least 1. */
export function createStartingWorld(
  ids: SnowflakeGenerator,
  options: { botUsername?: string; textChannelCount?: number },
): StartingWorld {
  const world = createWorld(ids, options.botUsername ?? 'parley');
  const user = world.addUser({ username: 'alice', globalName: 'Alice' });
  // Owned by a person: an owner has every permission, so a bot owner could not lose any.
  const guild = world.addGuild({ name: 'Parley Test', ownerId: user.id });
  const textChannels: FakeChannel[] = [];
  const count = Math.max(1, options.textChannelCount ?? 2);
  for (let index = 0; index < count; index += 1) {
    const name = ['general', 'random'][index] ?? `channel-${index + 1}`;
    textChannels.push(world.addTextChannel({ guildId: guild.id, name }));
  }
  const [general] = textChannels as [FakeChannel, ...FakeChannel[]];
  const thread = world.addThread({ parentId: general.id, name: 'general-thread' });
  return { world, user, guild, textChannels, thread };
}

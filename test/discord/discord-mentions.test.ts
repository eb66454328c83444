import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest;
beforeEach(async () => {
  under = await startDiscordUnderTest();
});
afterEach(() => under.close());

const general = () => under.generalChannelId;
const botMessages = () => under.botMessages(general());

describe('model text on Discord', () => {
  it('pings nobody: not @everyone, not a role, not a person, not the asker', async () => {
    const grace = under.discord.createUser({ username: 'grace' });
    const devs = under.discord.createRole({ name: 'devs', isMentionable: true });
    // With Mention Everyone the bot could ping anyone at all; only allowed_mentions stops it.
    under.discord.createRole({
      name: 'parley',
      permissions: ['mention-everyone'],
      memberIds: [under.discord.bot.id],
    });
    const text = `@everyone and @here: ask <@&${devs}> or <@${grace.id}> about it.`;

    under.gateway.enqueue({ text, chunkSize: 12, delayBetweenChunksMs: 40 });
    under.discord.sendUserMessage({ channelId: general(), content: 'who knows?', mentionsBot: true });
    const reply = await under.discord.waitFor(() =>
      botMessages().find((message) => message.content === text),
    );

    under.gateway.enqueue({ text, chunkSize: 12, delayBetweenChunksMs: 40 });
    under.discord.sendSlashCommand({ name: 'chat', channelId: general(), options: { prompt: 'and now?' } });
    const answer = await under.discord.waitFor(() =>
      botMessages().find((message) => message.content === text && message.interactionId !== null),
    );

    for (const message of [reply, answer]) {
      expect(message.content).toBe(text);
      expect({
        users: message.mentionIds,
        roles: message.mentionRoleIds,
        everyone: message.mentionsEveryone,
      }).toEqual({ users: [], roles: [], everyone: false });
    }
  });
});

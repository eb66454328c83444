import type { DiscordUnderTest } from './discord-under-test.ts';

/** Mentions the bot in `channelId` (default: general) and waits for its reply matching `ending`. */
export function askDiscordBot(
  under: DiscordUnderTest,
  {
    content,
    ending,
    channelId = under.generalChannelId,
  }: { content: string; ending: RegExp; channelId?: string },
) {
  const before = under.botMessages(channelId).length;
  under.discord.sendUserMessage({ channelId, content, mentionsBot: true });
  return under.discord.waitFor(
    () =>
      under
        .botMessages(channelId)
        .slice(before)
        .find((message) => ending.test(message.content)),
    { timeoutMs: 10_000 },
  );
}

/** A member with Manage Server, who sees /config. */
export function makeDiscordAdmin(under: DiscordUnderTest) {
  const admin = under.discord.createUser({ username: 'grace' });
  under.discord.createRole({ name: 'managers', permissions: ['manage-guild'], memberIds: [admin.id] });
  return admin;
}

/** Runs `/config <subcommand>` in general as `admin` and waits for its ✅ or ⚠ answer. */
export function runDiscordConfig(
  under: DiscordUnderTest,
  {
    admin,
    subcommand = 'set',
    options,
  }: { admin: { id: string }; subcommand?: 'set' | 'reset'; options: Record<string, string> },
) {
  const channelId = under.generalChannelId;
  const before = under.botMessages(channelId).length;
  under.discord.sendSlashCommand({ name: 'config', subcommand, channelId, user: admin.id, options });
  return under.discord.waitFor(() =>
    under
      .botMessages(channelId)
      .slice(before)
      .find((message) => /✅|⚠/.test(message.content)),
  );
}

import type { DiscordUnderTest } from '../support/discord-under-test.ts';

/** Mentions the bot in the general channel (as `author`, else the fake's default person) and waits for a reply containing `ending`. */
export async function askAndWait(
  subject: DiscordUnderTest,
  content: string,
  ending: string,
  author?: string,
) {
  subject.discord.sendUserMessage({
    channelId: subject.generalChannelId,
    content,
    mentionsBot: true,
    ...(author ? { author } : {}),
  });
  return subject.discord.waitFor(() =>
    subject.botMessages(subject.generalChannelId).find((message) => message.content.includes(ending)),
  );
}

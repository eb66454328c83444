import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textOfMessage } from '../support/discord-slash-command.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

// Discord's tokens last 15 minutes; the fake's and the bot's are shortened alike to 4 s.
const tokenLifetimeMs = 4_000;

let under: DiscordUnderTest;
beforeEach(async () => {
  under = await startDiscordUnderTest({}, { fakeDiscord: { interactionTokenLifetimeMs: tokenLifetimeMs } });
});
afterEach(() => under.close());

const general = () => under.generalChannelId;
const loadingFlag = 1 << 7;
const ephemeralFlag = 1 << 6;
const originalOf = (interactionId: string) =>
  under.discord.message(under.discord.interaction(interactionId)?.originalMessageId ?? '');

describe('commands queued behind a long reply on Discord', () => {
  it('say they are queued, hand over before the token ends, and answer in the channel or a DM', async () => {
    // A reply that streams for longer than the tokens live.
    under.gateway.enqueue({ text: 'word '.repeat(40).trim(), chunkSize: 5, delayBetweenChunksMs: 200 });
    under.discord.sendUserMessage({
      channelId: general(),
      content: 'tell me a long story',
      mentionsBot: true,
    });
    await under.discord.waitFor(() =>
      under.discord.messages(general()).find((message) => message.author.id === under.discord.bot.id),
    );
    const imagine = under.discord.sendSlashCommand({
      name: 'imagine',
      channelId: general(),
      options: { prompt: 'a patient cat' },
    });
    const model = under.discord.sendSlashCommand({ name: 'model', channelId: general() });

    const drawn = await under.discord.waitFor(
      () =>
        under.discord
          .messages(general())
          .find((message) => message.attachments.length > 0 && message.interactionId === null),
      { timeoutMs: 15_000, description: 'the drawing posted in the channel' },
    );
    // A components message names the person in a text display on top, which pings as content would.
    expect(textOfMessage(drawn).startsWith(`<@${under.discord.user.id}>\n**a patient cat**`)).toBe(true);
    expect(drawn.mentionIds).toEqual([under.discord.user.id]);

    const dm = under.discord.directMessageChannel();
    const modelAnswer = await under.discord.waitFor(
      () => under.discord.messages(dm).find((message) => message.content.includes('This conversation uses')),
      { description: 'the private /model answer as a DM' },
    );
    expect(modelAnswer.author.id).toBe(under.discord.bot.id);

    const imagineOriginal = originalOf(imagine);
    expect(imagineOriginal?.revisions.map((revision) => revision.content)).toContain(
      "⏳ Queued behind the reply in progress here; I'll answer as soon as it's done.",
    );
    expect(imagineOriginal?.content).toMatch(/I'll post the answer in this channel when it's ready\.$/);
    expect((imagineOriginal?.flags ?? loadingFlag) & loadingFlag).toBe(0);
    const modelOriginal = originalOf(model);
    expect(modelOriginal?.content).toMatch(/I'll send you the answer as a direct message when it's ready\.$/);
    expect((modelOriginal?.flags ?? 0) & (ephemeralFlag | loadingFlag)).toBe(ephemeralFlag);
    // Nothing was sent on a token that had expired.
    expect(under.discord.requests.filter((call) => call.errorCode === 50027)).toEqual([]);
  }, 25_000);
});

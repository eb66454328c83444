import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * A message too long for the model's context must never go unanswered (issue 10, item 8: in a server
 * with a 32k-token model a 40,000-character message once got no reply at all). The test catalog gives
 * chat-model 32,000 tokens of context.
 */
let under: DiscordUnderTest;
afterEach(() => under.close());

const chatRequests = () =>
  under.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));

describe('a message longer than the model can read, in a server channel', () => {
  it('a 40,000-character message gets an answer or a clear reason, never silence', async () => {
    under = await startDiscordUnderTest();
    const channelId = under.generalChannelId;
    const words = 'lorem ipsum dolor sit amet consectetur '.repeat(Math.ceil(40_000 / 39)).slice(0, 40_000);
    under.gateway.enqueue({ text: 'I read the whole thing.' });
    under.discord.sendUserMessage({ channelId, content: words, mentionsBot: true });
    const reply = await under.discord.waitFor(
      () => under.botMessages(channelId).find((message) => message.content.endsWith('thing.')),
      { timeoutMs: 10_000 },
    );
    // 40,000 characters are about 10,000 tokens: they fit in 32k, so the model answers.
    expect(reply.content).toBe('I read the whole thing.');
    expect(chatRequests()).toHaveLength(1);
  });

  it('a message larger than the whole context is refused with a short reason, without calling the model', async () => {
    under = await startDiscordUnderTest();
    const channelId = under.generalChannelId;
    const words = 'lorem ipsum dolor sit amet consectetur '.repeat(4_000);
    under.discord.sendUserMessage({ channelId, content: words, mentionsBot: true });
    const reply = await under.discord.waitFor(() => under.botMessages(channelId).at(-1), {
      timeoutMs: 10_000,
    });
    expect(reply.content).toMatch(/too long/i);
    expect(reply.content.length).toBeLessThan(400);
    expect(chatRequests()).toEqual([]);
  });
});

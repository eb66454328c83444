import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { type FaultProxy, serviceUnavailable, startFaultProxy } from '../support/fault-proxy.ts';

/**
 * A burst of 503s in front of Discord's REST API on the upload of a drawn image, from a proxy (the
 * fake does not make 5xx itself; discord-api-docs topics/opcodes-and-status-codes.mdx, "HTTP Response
 * Codes": a 5xx is a server error or no gateway available, to wait a bit and retry).
 * discord.js tries each request 4 times; past that, parley tries the post again, and the image must
 * then replace the progress line, not land in a second message under a "drawing…" left for good.
 */
let under: DiscordUnderTest | undefined;
let proxy: FaultProxy | undefined;
afterEach(async () => {
  await under?.close();
  await proxy?.close();
});

async function freePort(): Promise<number> {
  const probe = await startFaultProxy({ targetOrigin: 'http://127.0.0.1:9' });
  const port = Number(new URL(probe.origin).port);
  await probe.close();
  return port;
}

describe('a drawn image whose upload meets a burst of 503s', () => {
  it('replaces the progress line once it lands', async () => {
    const port = await freePort();
    proxy = await startFaultProxy({ targetOrigin: `http://127.0.0.1:${port}` });
    under = await startDiscordUnderTest(
      { DISCORD_API_URL: `${proxy.origin}/api` },
      { fakeDiscord: { port } },
    );
    const discord = under.discord;
    const rule = proxy.inject({
      matches: (request) => request.bodyText.includes('filename='),
      fault: serviceUnavailable(),
      count: 6,
    });
    const interactionId = discord.sendSlashCommand({
      name: 'imagine',
      channelId: under.generalChannelId,
      options: { prompt: 'a green square' },
    });
    const withImage = await discord.waitFor(
      () => under?.botMessages(under.generalChannelId).find((message) => message.attachments.length > 0),
      { timeoutMs: 12_000 },
    );
    expect(rule.count).toBe(0);
    expect(withImage.id).toBe(discord.interaction(interactionId)?.originalMessageId);
    expect(withImage.content).not.toContain('drawing');
    expect(under.botMessages(under.generalChannelId)).toHaveLength(1);
  });
});

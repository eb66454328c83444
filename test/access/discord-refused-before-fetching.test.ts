import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUser } from '../fakes/discord/index.ts';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { type FakeWeb, startFakeWeb } from '../fakes/web/fake-web.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * Issue 34, item 8: the access gate answers on the message's own facts before anything the message
 * points at is fetched or looked up. A blocked person's message with a large file, an image, a link
 * and mentions costs parley its refusal and nothing else: no download from the CDN, no request to the
 * linked site, no look-up of the people it names, no gateway request. The same message from someone
 * allowed is read as before.
 */
const largeDocumentBytes = 6 * 1024 * 1024;

let under: DiscordUnderTest;
let mallory: FakeUser;
let grace: FakeUser;
let linkedSite: FakeWeb;

beforeAll(async () => {
  linkedSite = await startFakeWeb();
  linkedSite.setPage('/tides', { body: 'the tide table for Tuesday' });
  under = await startDiscordUnderTest((discord) => {
    mallory = discord.createUser({ username: 'mallory' });
    grace = discord.createUser({ username: 'grace', globalName: 'Grace' });
    return {
      ACCESS_BLOCK_USER_IDS: mallory.id,
      // The linked site is on loopback: let links there be read, so only the gate can stop it.
      LINK_PRIVATE_ORIGINS: linkedSite.origin,
    };
  });
}, 30_000);
afterAll(async () => {
  await under.close();
  await linkedSite.close();
});

function messageWithEverything(author: FakeUser): string {
  return under.discord.sendUserMessage({
    channelId: under.generalChannelId,
    author,
    mentionsBot: true,
    mentions: [grace.id],
    content: `read this and ${linkedSite.origin}/tides`,
    attachments: [
      {
        filename: 'minutes.txt',
        contentType: 'text/plain',
        bytes: new Uint8Array(largeDocumentBytes).fill(0x61),
      },
      {
        filename: 'chart.png',
        contentType: 'image/png',
        bytes: createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 0, green: 0, blue: 200 } }),
      },
    ],
  });
}

describe('Discord: a refused message is refused before it is read', () => {
  it('downloads, fetches and looks up nothing for a blocked person, in inline reply mode', async () => {
    const requestsBefore = under.discord.requests.length;
    messageWithEverything(mallory);
    const dm = under.discord.directMessageChannel(mallory.id);
    const refusal = await under.discord.waitFor(() =>
      under.botMessages(dm).find((message) => /cannot use parley/.test(message.content)),
    );
    expect(refusal.content).toMatch(/Sorry, you cannot use parley here/);
    // Anything still under way after the refusal would show within this time.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(under.discord.attachmentDownloads).toEqual([]);
    expect(linkedSite.requests).toEqual([]);
    expect(under.gateway.requests).toEqual([]);
    // Only the private notice: opening the DM and posting in it. No member or user look-up.
    const routes = under.discord.requests.slice(requestsBefore).map((call) => `${call.method} ${call.route}`);
    expect(routes.filter((route) => !/^POST (create-dm|message-create)$/.test(route))).toEqual([]);
    expect(under.botMessages(under.generalChannelId)).toEqual([]);
  });

  it('still reads the files and the link of someone allowed', async () => {
    under.gateway.enqueue({ text: 'Read it all.' });
    messageWithEverything(grace);
    await under.discord.waitFor(() =>
      under.botMessages(under.generalChannelId).find((message) => message.content.startsWith('Read it all.')),
    );
    expect(under.discord.attachmentDownloads.length).toBeGreaterThanOrEqual(2);
    expect(linkedSite.requests.map((request) => request.path)).toContain('/tides');
    expect(
      under.gateway.requests.filter((request) => request.path.endsWith('/chat/completions')),
    ).toHaveLength(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

const hourMs = 60 * 60 * 1000;

// Discord's attachment links are signed and expire (ex/is/hm; discord-api-docs reference.mdx,
// "Signed Attachment CDN URLs"); a Vary button lives 7 days. The default image model answers base64
// and takes reference images only as links, so Vary needs a Discord link that still works.
describe('Vary on Discord after the posted image’s link has expired', () => {
  let under: DiscordUnderTest;
  beforeAll(async () => {
    under = await startDiscordUnderTest();
  });
  afterAll(() => under.close());

  const general = () => under.discord.textChannelIds[0] ?? '';
  const imageRequests = () =>
    under.gateway.requests.filter((request) => request.path.endsWith('/images/generations'));

  it('sends the link signed afresh in the click, which works, where the saved one no longer does', async () => {
    under.discord.sendSlashCommand({
      name: 'imagine',
      channelId: general(),
      options: { prompt: 'a blue kite' },
    });
    const posted = await under.discord.waitFor(() =>
      under.discord
        .messages(general())
        .find((message) => message.attachments.length > 0 && message.components.length > 0),
    );
    const linkWhenPosted = posted.attachments[0]?.url ?? '';
    const varyId =
      JSON.stringify(posted.components).match(/"custom_id":"([^"]*imagine\.vary[^"]*)"/)?.[1] ?? '';
    // Let the payload learn the posted link, then let six days pass: well past the link's life.
    await new Promise((resolve) => setTimeout(resolve, 200));
    under.discord.advanceAttachmentClock(6 * 24 * hourMs);
    expect((await fetch(linkWhenPosted)).status).toBe(404);

    under.discord.clickButton({ messageId: posted.id, customId: varyId });
    const varied = await under.discord.waitFor(() => imageRequests()[1]);

    const [reference] = (varied.body as { image_input: string[] }).image_input;
    expect(reference).not.toBe(linkWhenPosted);
    expect(new URL(reference ?? '').pathname).toBe(new URL(linkWhenPosted).pathname);
    const download = await fetch(reference ?? '');
    expect(download.status).toBe(200);
    expect(
      Buffer.from(await download.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });
});

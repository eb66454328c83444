import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { componentsOf, isCard, textOfMessage } from '../support/discord-slash-command.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

// Cards and drawn images as Components V2 (components/reference.mdx): one container with the card's
// accent colour, a section with the button beside the text it acts on, images in one media gallery.
// The fake refuses content or embeds with the flag, more than 40 components or 4,000 characters.
let under: DiscordUnderTest;
beforeEach(async () => {
  under = await startDiscordUnderTest();
});
afterEach(() => under.close());

const general = () => under.generalChannelId;

describe('Components V2 on Discord', () => {
  it('/imagine posts every image in one gallery, Regenerate beside the prompt and Vary under the images', async () => {
    under.discord.sendSlashCommand({
      name: 'imagine',
      channelId: general(),
      options: { prompt: 'two green squares', count: 2 },
    });
    const posted = await under.discord.waitFor(
      () =>
        under.botMessages(general()).find((message) => message.attachments.length === 2 && isCard(message)),
      { timeoutMs: 10_000 },
    );
    expect(posted.content).toBe('');
    const [container] = posted.components as unknown as Array<{
      type: number;
      components: Array<Record<string, unknown>>;
    }>;
    const types = container?.components.map((component) => component.type);
    // Section (text + Regenerate), separator, gallery, action row (Vary 1, Vary 2).
    expect(types).toEqual([9, 14, 12, 1]);
    const section = container?.components[0] as {
      components: Array<{ content: string }>;
      accessory: { label: string };
    };
    expect(section.components[0]?.content).toContain('**two green squares**');
    expect(section.accessory.label).toBe('Regenerate');
    const gallery = container?.components[2] as { items: Array<{ media: { url: string } }> };
    expect(gallery.items.map((item) => item.media.url)).toEqual(
      posted.attachments.map((attachment) => `attachment://${attachment.filename}`),
    );
    const row = container?.components[3] as { components: Array<{ label: string }> };
    expect(row.components.map((button) => button.label)).toEqual(['Vary 1', 'Vary 2']);

    // Regenerate, pressed beside the prompt, draws again into a new gallery.
    const regenerateId = String(
      componentsOf(posted).find((component) => component.label === 'Regenerate')?.custom_id ?? '',
    );
    under.discord.clickButton({ messageId: posted.id, customId: regenerateId });
    await under.discord.waitFor(
      () =>
        under
          .botMessages(general())
          .filter((message) => message.attachments.length === 2 && isCard(message))[1],
      { timeoutMs: 10_000 },
    );
  });

  it('/usage is a card in a container with its accent colour, private, with no content or embeds', async () => {
    under.discord.sendSlashCommand({ name: 'usage', channelId: general(), options: {} });
    const card = await under.discord.waitFor(() =>
      under.botMessages(general()).find((message) => isCard(message) && (message.flags & 128) === 0),
    );
    expect(card.flags & 64).toBe(64);
    expect(card.content).toBe('');
    expect(card.embeds).toEqual([]);
    expect((card.components[0] as { accent_color?: number }).accent_color).toEqual(expect.any(Number));
    expect(textOfMessage(card)).toMatch(/^### /);
  });
});

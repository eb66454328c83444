import { type Client, DiscordAPIError, MessageFlags, type TextChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { connectClient } from './discord-client.ts';

// components/reference.mdx (introduction, Container, Section, Text Display, Media Gallery, File) and
// resources/message.mdx ("Create Message", "Edit Message"); the 4,000 characters of text are from
// discord/discord-api-docs pull request #8562.
describe('fake discord: messages with IS_COMPONENTS_V2', () => {
  let fake: FakeDiscord;
  let client: Client<true>;
  let channel: TextChannel;

  beforeAll(async () => {
    fake = await startFakeDiscord();
    client = await connectClient(fake);
    channel = client.channels.cache.get(fake.textChannelIds[0] ?? '') as TextChannel;
  });
  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });

  const text = (content: string) => ({ type: 10, content });
  const refused = async (send: () => Promise<unknown>) => {
    const error = await send().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DiscordAPIError);
    return (error as DiscordAPIError).rawError as { code: number; errors?: unknown };
  };

  it('takes a container with an accent colour, a section with a button and a gallery of uploaded images', async () => {
    const png = createSolidPng({ widthPx: 2, heightPx: 2, colour: { red: 0, green: 0, blue: 255 } });
    const sent = await channel.send({
      flags: MessageFlags.IsComponentsV2,
      files: [{ attachment: Buffer.from(png), name: 'blue.png' }],
      components: [
        {
          type: 17,
          accent_color: 0x5865f2,
          components: [
            {
              type: 9,
              components: [text('### A blue square')],
              accessory: { type: 2, style: 2, label: 'Regenerate', custom_id: 'again' },
            },
            { type: 12, items: [{ media: { url: 'attachment://blue.png' } }] },
            { type: 14 },
            text('-# drawn by the fake'),
          ],
        },
      ],
    });
    expect(sent.flags.has(MessageFlags.IsComponentsV2)).toBe(true);
    expect(fake.message(sent.id)?.components[0]).toMatchObject({ type: 17, accent_color: 0x5865f2 });
  });

  it('refuses content or embeds with the flag', async () => {
    const withContent = await refused(() =>
      channel.send({ flags: MessageFlags.IsComponentsV2, content: 'hello', components: [text('hi')] }),
    );
    expect(withContent.code).toBe(50035);
    expect(JSON.stringify(withContent.errors)).toContain(
      'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
    );
    const withEmbeds = await refused(() =>
      channel.send({
        flags: MessageFlags.IsComponentsV2,
        embeds: [{ title: 'x' }],
        components: [text('hi')],
      }),
    );
    expect(withEmbeds.code).toBe(50035);
  });

  it('refuses more than 40 components, nested ones counted, and more than 4,000 characters of text', async () => {
    const tooMany = await refused(() =>
      channel.send({
        flags: MessageFlags.IsComponentsV2,
        components: [
          { type: 17, components: Array.from({ length: 40 }, (_, index) => text(`line ${index}`)) },
        ],
      }),
    );
    expect(JSON.stringify(tooMany.errors)).toContain('40 or fewer components');
    const tooLong = await refused(() =>
      channel.send({
        flags: MessageFlags.IsComponentsV2,
        components: [text('a'.repeat(2500)), text('b'.repeat(1501))],
      }),
    );
    expect(JSON.stringify(tooLong.errors)).toContain('4000 or fewer characters');
  });

  it('refuses a gallery item naming a file the message does not carry', async () => {
    const missing = await refused(() =>
      channel.send({
        flags: MessageFlags.IsComponentsV2,
        components: [{ type: 12, items: [{ media: { url: 'attachment://nowhere.png' } }] }],
      }),
    );
    expect(JSON.stringify(missing.errors)).toContain('UNFURLED_MEDIA_ITEM_ATTACHMENT_NOT_FOUND');
  });

  it('an edit may set the flag only with the content reset to null, and never take it off', async () => {
    const plain = await channel.send({ content: 'thinking…' });
    await refused(() => plain.edit({ flags: MessageFlags.IsComponentsV2, components: [text('done')] }));
    const edited = await plain.edit({
      flags: MessageFlags.IsComponentsV2,
      content: null,
      components: [text('done')],
    });
    expect(edited.flags.has(MessageFlags.IsComponentsV2)).toBe(true);
    await refused(() => edited.edit({ content: 'back to plain', components: [] }));
  });
});

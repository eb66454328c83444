import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { type InternalTarget, startInternalTarget } from './internal-target.ts';

// The real bot on the fake Discord and the fake gateway, both on 127.0.0.1 and trusted because the
// test configures them (DISCORD_API_URL, GATEWAY_BASE_URL). The "internal" server is another port
// of the same machine: nothing trusts it, and it must never see a connection.
let under: DiscordUnderTest;
let internal: InternalTarget;

beforeAll(async () => {
  under = await startDiscordUnderTest();
  internal = await startInternalTarget();
});
afterEach(() => {
  expect(internal.connectionCount).toBe(0);
  expect(internal.requests).toEqual([]);
});
afterAll(async () => {
  await under.close();
  await internal.close();
});

const general = () => under.discord.textChannelIds[0] ?? '';
const png = createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 9, green: 9, blue: 9 } });
type ChatBody = { messages: Array<{ role: string; content: unknown }> };
const lastChatBody = () =>
  under.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody)
    .at(-1);

async function replyTo(
  content: string,
  attachment: Parameters<DiscordUnderTest['discord']['sendUserMessage']>[0]['attachments'],
) {
  const questionId = under.discord.sendUserMessage({
    channelId: general(),
    content,
    mentionsBot: true,
    ...(attachment ? { attachments: attachment } : {}),
  });
  return under.discord.waitFor(() =>
    under.discord
      .messages(general())
      .find(
        (message) =>
          message.author.id === under.discord.bot.id &&
          message.replyToMessageId === questionId &&
          message.content.includes('left it out'),
      ),
  );
}

describe('downloads parley makes because a link said so', () => {
  it('refuses a Discord attachment whose link points at a loopback address', async () => {
    under.gateway.enqueue({ text: 'I see no image.' });
    const reply = await replyTo('what is this?', [
      {
        filename: 'secret.png',
        contentType: 'image/png',
        bytes: png,
        linkTo: `${internal.origin}/latest/meta-data/iam`,
      },
    ]);
    expect(reply.content).toContain(
      'I did not download secret.png: its link points to a private network address, so I left it out.',
    );
    // The model got the question without any image.
    expect(JSON.stringify(lastChatBody()?.messages.at(-1)?.content)).not.toContain('image_url');
  });

  it('refuses a Discord attachment on a host that is not Discord’s CDN', async () => {
    under.gateway.enqueue({ text: 'No image here.' });
    const reply = await replyTo('and this?', [
      {
        filename: 'elsewhere.png',
        contentType: 'image/png',
        bytes: png,
        linkTo: 'https://example.test/x.png',
      },
    ]);
    expect(reply.content).toContain(
      'I did not download elsewhere.png: its link points to example.test, which is not a host I download from',
    );
  });

  it('refuses a CDN link that redirects to an internal address', async () => {
    under.gateway.enqueue({ text: 'Nothing to see.' });
    const reply = await replyTo('look', [
      {
        filename: 'bounce.png',
        contentType: 'image/png',
        bytes: png,
        redirectTo: `${internal.origin}/admin`,
      },
    ]);
    expect(reply.content).toContain(
      'I did not download bounce.png: its link points to a private network address',
    );
    // The CDN itself was asked (it is Discord's own), and answered with the redirect.
    expect(under.discord.attachmentDownloads.at(-1)?.status).toBe(302);
  });

  it('refuses a generated image whose link points at an internal address, and says so', async () => {
    under.gateway.enqueue({ endpoint: 'images', imageLinks: [`${internal.origin}/render.png`] });
    under.discord.sendSlashCommand({ name: 'imagine', channelId: general(), options: { prompt: 'a fox' } });
    const answer = await under.discord.waitFor(() =>
      under.discord
        .messages(general())
        .find((message) => message.author.id === under.discord.bot.id && message.content.startsWith('⚠')),
    );
    expect(answer.content).toBe(
      '⚠ The image service sent a link I do not download from (its link points to a private network address), so I cannot show the image.',
    );
    expect(answer.attachments).toEqual([]);
    expect(under.logOutput()).toContain('generated image link refused');
  });
});

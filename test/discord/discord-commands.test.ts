import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/all-commands.ts';
import { messageActions } from '../../commands/message-actions.ts';
import { detectImageType } from '../../src/images/image-type.ts';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { isCard, textOfMessage } from '../support/discord-slash-command.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest;
beforeEach(async () => {
  under = await startDiscordUnderTest();
});
afterEach(() => under.close());

const general = () => under.generalChannelId;
const botMessages = (channelId: string) => under.botMessages(channelId);

describe('slash commands on Discord', () => {
  it('registers every command in the configured guild, with option types and autocomplete', () => {
    const registered = under.discord.registeredCommands(under.discord.guildId);
    expect(
      registered
        .filter((command) => command.type === 1)
        .map((command) => command.name)
        .sort(),
    ).toEqual(allCommands.map((command) => command.name).sort());
    // The message actions are registered with them, as message commands (type 3).
    expect(registered.filter((command) => command.type === 3).map((command) => command.name)).toEqual(
      messageActions.map((action) => action.name),
    );
    const imagine = registered.find((command) => command.name === 'imagine');
    expect(imagine?.options?.map((option) => [option.name, option.type, option.required ?? false])).toEqual([
      ['prompt', 3, true],
      ['count', 4, false],
      ['aspect_ratio', 3, false],
      ['format', 3, false],
      ['reference', 11, false],
    ]);
    expect(imagine?.options?.[1]).toMatchObject({ min_value: 1, max_value: 4 });
    const model = registered.find((command) => command.name === 'model');
    expect(model?.options?.[0]).toMatchObject({ name: 'name', autocomplete: true });
  });

  it('/imagine defers at once, shows progress, then uploads the image with Regenerate and Vary', async () => {
    under.gateway.enqueue({ endpoint: 'images', latencyMs: 300 });
    const interactionId = under.discord.sendSlashCommand({
      name: 'imagine',
      channelId: general(),
      options: { prompt: 'a green square', count: 1, aspect_ratio: '16:9' },
    });
    const withImage = await under.discord.waitFor(
      () => botMessages(general()).find((message) => message.attachments.length > 0),
      {
        timeoutMs: 10_000,
      },
    );
    const responses = under.discord.interactionResponses(interactionId);
    expect(responses[0]?.type).toBe(5);
    expect(withImage.revisions.some((revision) => revision.content.includes('🎨 drawing 1 image…'))).toBe(
      true,
    );
    const file = under.discord.uploadedFiles(withImage.id)[0];
    expect(file?.filename).toBe('parley-a-green-square-1.png');
    expect(detectImageType(file?.bytes ?? new Uint8Array())).toBe('image/png');
    expect(JSON.stringify(withImage.components)).toMatch(/"label":"Regenerate".*"label":"Vary"/);
    const imageRequest = under.gateway.requests.find((request) =>
      request.path.endsWith('/images/generations'),
    );
    expect(imageRequest?.body).toMatchObject({ prompt: 'a green square', n: 1, aspect_ratio: '16:9' });
  });

  it('/imagine with a reference attachment sends it as image_input', async () => {
    const png = createSolidPng({ widthPx: 2, heightPx: 2, colour: { red: 1, green: 2, blue: 3 } });
    under.discord.sendSlashCommand({
      name: 'imagine',
      channelId: general(),
      options: { prompt: 'like this' },
      attachments: { reference: { filename: 'ref.png', contentType: 'image/png', bytes: png } },
    });
    const imageRequest = await under.discord.waitFor(() =>
      under.gateway.requests.find((request) => request.path.endsWith('/images/generations')),
    );
    // image_input takes links: Discord's attachment link is public, so it is sent as is.
    const [reference] = (imageRequest.body as { image_input: string[] }).image_input;
    // Discord signs attachment links (ex, is, hm; discord-api-docs reference.mdx).
    expect(reference).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/attachments\/.*ref\.png\?ex=[0-9a-f]+&is=[0-9a-f]+&hm=[0-9a-f]+&$/,
    );
    const downloaded = new Uint8Array(await (await fetch(reference ?? '')).arrayBuffer());
    expect(Buffer.from(downloaded).equals(Buffer.from(png))).toBe(true);
  });

  it('Vary sends the posted image by its Discord link as the reference', async () => {
    under.discord.sendSlashCommand({
      name: 'imagine',
      channelId: general(),
      options: { prompt: 'a red door' },
    });
    const posted = await under.discord.waitFor(() =>
      botMessages(general()).find(
        (message) => message.attachments.length > 0 && message.components.length > 0,
      ),
    );
    const varyId =
      JSON.stringify(posted.components).match(/"custom_id":"([^"]*imagine\.vary[^"]*)"/)?.[1] ?? '';
    // The payload learns the posted file's link right after the post.
    await new Promise((resolve) => setTimeout(resolve, 200));
    under.discord.clickButton({ messageId: posted.id, customId: varyId });
    const varied = await under.discord.waitFor(
      () => under.gateway.requests.filter((request) => request.path.endsWith('/images/generations'))[1],
    );
    // The link of the posted file, signed afresh in the click's payload (it expires; see
    // test/images/vary-after-expiry.test.ts).
    const [reference] = (varied.body as { image_input: string[] }).image_input;
    expect(new URL(reference ?? '').pathname).toBe(new URL(posted.attachments[0]?.url ?? '').pathname);
  });

  it('/summarize reads the channel from Discord and answers with an embed', async () => {
    under.discord.sendUserMessage({ channelId: general(), content: 'Shall we ship on Friday?' });
    under.discord.sendUserMessage({ channelId: general(), content: 'Yes, and Grace writes the notes.' });
    under.gateway.enqueue({
      text: JSON.stringify({
        title: 'Release day',
        tldr: 'Ship Friday.',
        keyPoints: ['Ship on Friday'],
        decisions: ['Friday release'],
        actionItems: [{ owner: 'Grace', task: 'Write the notes', due: null }],
        openQuestions: [],
      }),
    });
    under.discord.sendSlashCommand({ name: 'summarize', channelId: general(), options: { messages: 10 } });
    const answer = await under.discord.waitFor(
      () => botMessages(general()).find((message) => isCard(message)),
      { timeoutMs: 10_000 },
    );
    // A Components V2 card (components/reference.mdx, "Container"): no content, no embeds.
    expect(answer.content).toBe('');
    expect(answer.embeds).toEqual([]);
    expect(answer.components[0]).toMatchObject({ type: 17, accent_color: 0x5865f2 });
    const shown = textOfMessage(answer);
    expect(shown).toContain('### Release day');
    expect(shown).toContain('**TL;DR** Ship Friday.');
    expect(
      [...shown.matchAll(/\*\*(Key points|Decisions|Action items|Open questions)\*\*/g)].map(
        (match) => match[1],
      ),
    ).toEqual(['Key points', 'Decisions', 'Action items']);
    const request = under.gateway.requests.find((entry) => entry.path.endsWith('/chat/completions'));
    expect(JSON.stringify(request?.body)).toContain('Shall we ship on Friday?');
    expect(JSON.stringify(request?.body)).toContain('Grace writes the notes');
  });

  it.each([
    { name: 'help', options: {}, shows: '/imagine' },
    { name: 'usage', options: {}, shows: '' },
    { name: 'model', options: {}, shows: 'This conversation uses' },
    { name: 'system', options: {}, shows: 'system prompt' },
  ])(
    '/$name answers privately from the start: no public "thinking…", not even for a moment',
    async ({ name, options, shows }) => {
      const publicMessages: string[] = [];
      const stopWatching = under.discord.subscribe((event) => {
        if (event.type === 'message-create' && (event.message.flags & 64) === 0) {
          publicMessages.push(event.message.id);
        }
      });
      const interactionId = under.discord.sendSlashCommand({ name, channelId: general(), options });
      const answer = await under.discord.waitFor(() =>
        botMessages(general()).find(
          (message) => (message.content.includes(shows) || isCard(message)) && (message.flags & 128) === 0,
        ),
      );
      stopWatching();
      expect(answer.flags & 64).toBe(64);
      expect(under.discord.interactionResponses(interactionId)[0]).toMatchObject({
        type: 5,
        data: { flags: 64 },
      });
      expect(publicMessages).toEqual([]);
    },
  );

  it('/help is one private answer, the Discord guide first, in messages within 2,000 characters', async () => {
    const interactionId = under.discord.sendSlashCommand({ name: 'help', channelId: general(), options: {} });
    const pieces = await under.discord.waitFor(() => {
      const answered = botMessages(general()).filter((message) => message.interactionId === interactionId);
      return answered.some((message) => message.content.includes('Default model:')) ? answered : undefined;
    });
    const text = pieces.map((message) => message.content).join('\n');
    // The guide and the command list together pass Discord's 2,000 characters: the responder splits.
    expect(text.length).toBeGreaterThan(2_000);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces[0]?.content.startsWith('**On Discord**\nMention me (or DM me) to chat')).toBe(true);
    expect(text.indexOf('`/imagine')).toBeGreaterThan(text.indexOf('**On Discord**'));
    for (const piece of pieces) {
      expect(piece.flags & 64).toBe(64);
      expect([...piece.content].length).toBeLessThanOrEqual(2_000);
    }
  });

  it('a bad option gets one line that says what is allowed', async () => {
    under.discord.sendSlashCommand({ name: 'summarize', channelId: general(), options: { messages: 1 } });
    const answer = await under.discord.waitFor(() =>
      botMessages(general()).find((message) => message.content.startsWith('⚠')),
    );
    expect(answer.content).toMatch(/^⚠ messages must be a whole number from 5 to 200\.\nUsage: `\/summarize/);
  });

  it('/chat streams into the interaction response', async () => {
    under.gateway.enqueue({
      text: 'Answer through the slash command.',
      chunkSize: 5,
      delayBetweenChunksMs: 30,
    });
    under.discord.sendSlashCommand({ name: 'chat', channelId: general(), options: { prompt: 'hello' } });
    const answer = await under.discord.waitFor(() =>
      botMessages(general()).find(
        (message) =>
          message.content === 'Answer through the slash command.' &&
          JSON.stringify(message.components).includes('Regenerate'),
      ),
    );
    expect(answer.interactionId).not.toBeNull();
  });

  it('autocompletes model names', async () => {
    const interactionId = under.discord.sendAutocomplete({
      name: 'model',
      channelId: general(),
      focused: { name: 'name', value: 'vis' },
    });
    const response = await under.discord.waitFor(() => under.discord.interactionResponses(interactionId)[0]);
    expect(response.type).toBe(8);
    expect(response.data).toEqual({ choices: [{ name: 'vision-model', value: 'vision-model' }] });
  });
});

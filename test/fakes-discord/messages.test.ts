import {
  AttachmentBuilder,
  type Client,
  DiscordAPIError,
  Events,
  type Message,
  type TextChannel,
} from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { connectClient } from './discord-client.ts';

describe('fake discord: messages with the real client', () => {
  let fake: FakeDiscord;
  let client: Client<true>;
  let generalId: string;

  beforeAll(async () => {
    fake = await startFakeDiscord();
    client = await connectClient(fake);
    generalId = fake.textChannelIds[0] ?? '';
  });
  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  function nextMessage(filter: (message: Message) => boolean = () => true): Promise<Message> {
    return new Promise((resolve) => {
      const listener = (message: Message) => {
        if (filter(message)) {
          client.off(Events.MessageCreate, listener);
          resolve(message);
        }
      };
      client.on(Events.MessageCreate, listener);
    });
  }

  function textChannel(channelId: string): TextChannel {
    return client.channels.cache.get(channelId) as TextChannel;
  }

  it('delivers a person’s message with its mention and an attachment the bot can download', async () => {
    const png = createSolidPng({ widthPx: 2, heightPx: 2, colour: { red: 255, green: 0, blue: 0 } });
    const received = nextMessage((message) => message.author.id === fake.user.id);

    const messageId = fake.sendUserMessage({
      channelId: generalId,
      content: 'what is in this picture?',
      mentionsBot: true,
      attachments: [{ filename: 'screenshot.png', contentType: 'image/png', bytes: png }],
    });

    const message = await received;
    expect(message.id).toBe(messageId);
    expect(message.content).toBe(`<@${fake.bot.id}> what is in this picture?`);
    expect(message.mentions.users.has(fake.bot.id)).toBe(true);
    expect(message.inGuild()).toBe(true);
    const attachment = message.attachments.first();
    expect(attachment?.contentType).toBe('image/png');
    expect(attachment?.size).toBe(png.length);
    const download = await fetch(attachment?.url ?? '');
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await download.arrayBuffer())).toEqual(png);
  });

  it('delivers a reply with its reference and a DM through the Channel partial', async () => {
    const original = fake.sendUserMessage({ channelId: generalId, content: 'first' });
    const reply = nextMessage((message) => message.content === 'second');
    fake.sendUserMessage({ channelId: generalId, content: 'second', replyToMessageId: original });
    expect((await reply).reference?.messageId).toBe(original);

    const directMessage = nextMessage((message) => message.content === 'hello in private');
    fake.sendUserMessage({ channelId: fake.directMessageChannel(), content: 'hello in private' });
    const message = await directMessage;
    expect(message.channel.isDMBased()).toBe(true);
    expect(message.author.id).toBe(fake.user.id);
  });

  it('stores a sent message and its edits, and dispatches both on the gateway', async () => {
    const created = nextMessage((message) => message.author.id === fake.bot.id);
    const sent = await textChannel(generalId).send('Thinking');
    expect((await created).id).toBe(sent.id);

    const updates: string[] = [];
    const onUpdate = (_old: unknown, message: { content: string | null }) =>
      updates.push(message.content ?? '');
    client.on(Events.MessageUpdate, onUpdate);
    await sent.edit('Thinking about it');
    await sent.edit('The answer is 42.');
    await fake.waitFor(() => updates.length === 2);
    client.off(Events.MessageUpdate, onUpdate);
    expect(updates).toEqual(['Thinking about it', 'The answer is 42.']);

    const stored = fake.message(sent.id);
    expect(stored?.content).toBe('The answer is 42.');
    expect(stored?.editCount).toBe(2);
    expect(stored?.revisions.map((revision) => revision.content)).toEqual([
      'Thinking',
      'Thinking about it',
      'The answer is 42.',
    ]);
    expect(fake.requests.filter((call) => call.route === 'message-edit')).toHaveLength(2);
  });

  it('receives an upload with its bytes and serves it back', async () => {
    const png = createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 0, green: 0, blue: 255 } });
    const sent = await textChannel(generalId).send({
      content: 'Here it is',
      files: [new AttachmentBuilder(png, { name: 'drawing.png', description: 'a blue square' })],
    });

    const [file] = fake.uploadedFiles(sent.id);
    expect(file?.filename).toBe('drawing.png');
    expect(file?.contentType).toBe('image/png');
    expect(file?.description).toBe('a blue square');
    expect(Buffer.from(file?.bytes ?? [])).toEqual(png);
    const served = await fetch(sent.attachments.first()?.url ?? '');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(png);
  });

  it('refuses 2,001 characters with 50035 and accepts 2,000 (emoji count as one)', async () => {
    const error = await textChannel(generalId)
      .send('x'.repeat(2001))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect((error as DiscordAPIError).code).toBe(50035);
    expect((error as DiscordAPIError).status).toBe(400);
    expect((error as DiscordAPIError).rawError).toMatchObject({
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } },
    });

    await textChannel(generalId).send('😀'.repeat(2000));
    expect(fake.messages(generalId)).toHaveLength(1);
  });

  it('refuses an embed over its description limit and embeds over 6,000 characters in total', async () => {
    const tooLong = await textChannel(generalId)
      .send({ embeds: [{ description: 'd'.repeat(4097) }] })
      .catch((caught: unknown) => caught);
    expect((tooLong as DiscordAPIError).code).toBe(50035);
    expect((tooLong as DiscordAPIError).rawError).toMatchObject({
      errors: { embeds: { 0: { description: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } } },
    });
    // The OpenAPI specification has the 4,096 limit too (RichEmbed), and records the request.
    expect(fake.takeSpecificationViolations()).toMatchObject([
      {
        operationId: 'create_message',
        errors: [{ instancePath: '/embeds/0/description', keyword: 'maxLength' }],
      },
    ]);

    const tooMuch = await textChannel(generalId)
      .send({ embeds: [{ description: 'd'.repeat(4000) }, { description: 'd'.repeat(2001) }] })
      .catch((caught: unknown) => caught);
    expect((tooMuch as DiscordAPIError).code).toBe(50035);
    expect(fake.messages(generalId)).toHaveLength(0);
  });

  it('pages history with limit and before, newest first', async () => {
    const channel = textChannel(generalId);
    for (const content of ['one', 'two', 'three', 'four']) {
      fake.sendUserMessage({ channelId: generalId, content });
    }
    const ids = fake.messages(generalId).map((message) => message.id);

    const newest = await channel.messages.fetch({ limit: 2, cache: false });
    expect([...newest.values()].map((message) => message.content)).toEqual(['four', 'three']);
    const older = await channel.messages.fetch({ limit: 10, before: ids[2], cache: false });
    expect([...older.values()].map((message) => message.content)).toEqual(['two', 'one']);
    const one = await channel.messages.fetch({ message: ids[1] ?? '', cache: false });
    expect(one.content).toBe('two');
  });

  it('deletes a message and sends typing', async () => {
    const channel = textChannel(generalId);
    const sent = await channel.send('temporary');
    await channel.sendTyping();
    await sent.delete();
    expect(fake.message(sent.id)).toBeUndefined();
    expect(fake.requests.map((call) => `${call.route} ${call.status}`)).toEqual([
      'message-create 200',
      'typing 204',
      'message-delete 204',
    ]);
  });

  it('refuses to send where the bot lacks Send Messages, and the client sees the overwrite', async () => {
    const channelId = fake.createTextChannel({ name: 'read-only' });
    await fake.waitFor(() => client.channels.cache.get(channelId));
    fake.denyBotPermissions(channelId, ['send-messages']);
    await fake.waitFor(
      () => textChannel(channelId).permissionsFor(fake.bot.id)?.has('SendMessages') === false,
      {
        description: 'the CHANNEL_UPDATE to reach the client',
      },
    );

    const error = await textChannel(channelId)
      .send('hello?')
      .catch((caught: unknown) => caught);
    expect((error as DiscordAPIError).status).toBe(403);
    expect((error as DiscordAPIError).code).toBe(50013);
  });

  it('refuses a reply without Read Message History with 403 50013, and takes the same text as a plain post', async () => {
    const channelId = fake.createTextChannel({ name: 'no-history' });
    await fake.waitFor(() => client.channels.cache.get(channelId));
    const question = fake.sendUserMessage({ channelId, content: 'a question' });
    fake.denyBotPermissions(channelId, ['read-message-history']);

    const error = await textChannel(channelId)
      .send({ content: 'the answer', reply: { messageReference: question } })
      .catch((caught: unknown) => caught);
    expect((error as DiscordAPIError).status).toBe(403);
    expect((error as DiscordAPIError).code).toBe(50013);
    const plain = await textChannel(channelId).send('the answer');
    expect(fake.message(plain.id)?.replyToMessageId).toBeNull();
  });

  it('refuses a file over the upload limit, and a request over the total, with 413 and 40005', async () => {
    const small = await startFakeDiscord({ attachmentSizeLimitBytes: 1_000, requestSizeLimitBytes: 3_000 });
    const smallClient = await connectClient(small);
    try {
      const channel = smallClient.channels.cache.get(small.textChannelIds[0] ?? '') as TextChannel;
      const file = (name: string, sizeBytes: number) => ({ attachment: Buffer.alloc(sizeBytes, 7), name });
      const tooBig = await channel
        .send({ files: [file('big.bin', 1_001)] })
        .catch((caught: unknown) => caught);
      expect(tooBig).toMatchObject({ status: 413, code: 40005 });
      const tooMany = await channel
        .send({ files: [file('a.bin', 1_000), file('b.bin', 1_000), file('c.bin', 1_000)] })
        .catch((caught: unknown) => caught);
      expect(tooMany).toMatchObject({ status: 413, code: 40005 });
      const fits = await channel.send({ files: [file('a.bin', 1_000), file('b.bin', 1_000)] });
      expect(small.uploadedFiles(fits.id).map((uploaded) => uploaded.bytes.length)).toEqual([1_000, 1_000]);
    } finally {
      await smallClient.destroy();
      await small.close();
    }
  });

  it('refuses components over Discord’s limits with 50035, and takes five rows of five buttons', async () => {
    const button = (customId: string, label = 'Go') => ({ type: 2, style: 2, label, custom_id: customId });
    const row = (prefix: string, count = 5) => ({
      type: 1,
      components: Array.from({ length: count }, (_, index) => button(`${prefix}-${index}`)),
    });
    const send = (components: unknown[]) =>
      client.rest
        .post(`/channels/${generalId}/messages`, { body: { content: 'buttons', components } })
        .catch((caught: unknown) => caught);
    const refusals = [
      ['six rows', Array.from({ length: 6 }, (_, index) => row(`r${index}`, 1))],
      ['six buttons in a row', [row('a', 6)]],
      ['a repeated custom_id', [{ type: 1, components: [button('same'), button('same')] }]],
      ['a custom_id over 100 characters', [{ type: 1, components: [button('x'.repeat(101))] }]],
      ['a label over 80 characters', [{ type: 1, components: [button('ok', 'y'.repeat(81))] }]],
      ['an empty row', [{ type: 1, components: [] }]],
    ] as const;
    for (const [what, components] of refusals) {
      const error = await send([...components]);
      expect(error, what).toBeInstanceOf(DiscordAPIError);
      expect((error as DiscordAPIError).code, what).toBe(50035);
    }
    // The OpenAPI specification knows four of these limits (a row holds 1–5 components, `custom_id`
    // up to 100 characters, `label` up to 80); the fake's own rules refuse the other two.
    const forbidden = fake.takeSpecificationViolations().map((violation) => violation.errors[0]);
    expect(forbidden).toMatchObject([
      { instancePath: '/components/0/components', keyword: 'maxItems' },
      { instancePath: '/components/0/components/0/custom_id', keyword: 'maxLength' },
      { instancePath: '/components/0/components/0/label', keyword: 'maxLength' },
      { instancePath: '/components/0/components', keyword: 'minItems' },
    ]);
    const accepted = (await send(Array.from({ length: 5 }, (_, index) => row(`r${index}`)))) as {
      id: string;
    };
    expect(fake.message(accepted.id)?.components).toHaveLength(5);
  });

  it('stores as mentioned only what allowed_mentions lets through, with Discord’s defaults', async () => {
    const grace = fake.createUser({ username: 'grace' });
    const devs = fake.createRole({ name: 'devs', isMentionable: true });
    const quiet = fake.createRole({ name: 'quiet' });
    fake.createRole({ name: 'bot', permissions: ['mention-everyone'], memberIds: [fake.bot.id] });
    const content = `@everyone look: <@&${devs}> <@&${quiet}> <@${grace.id}>`;
    const send = (extra: Record<string, unknown>) =>
      client.rest
        .post(`/channels/${generalId}/messages`, { body: { content, ...extra } })
        .then((sent) => fake.message((sent as { id: string }).id))
        .catch((caught: unknown) => caught);
    const pinged = (message: unknown) => {
      const stored = message as { mentionIds: string[]; mentionRoleIds: string[]; mentionsEveryone: boolean };
      return [stored.mentionIds, stored.mentionRoleIds, stored.mentionsEveryone];
    };

    // A regular message without allowed_mentions parses every type; the bot may ping any role.
    expect(pinged(await send({}))).toEqual([[grace.id], [devs, quiet], true]);
    expect(pinged(await send({ allowed_mentions: { parse: [] } }))).toEqual([[], [], false]);
    expect(pinged(await send({ allowed_mentions: { users: [grace.id] } }))).toEqual([[grace.id], [], false]);
    const exclusive = await send({ allowed_mentions: { parse: ['users'], users: [grace.id] } });
    expect((exclusive as DiscordAPIError).code).toBe(50035);

    const plain = (await send({ allowed_mentions: { parse: [] } })) as { id: string };
    await client.rest.patch(`/channels/${generalId}/messages/${plain.id}`, { body: { content } });
    // An edit without allowed_mentions parses the new content with the defaults.
    expect(pinged(fake.message(plain.id))).toEqual([[grace.id], [devs, quiet], true]);
  });

  it('shows a private thread and its messages to the bot only once it is a member', async () => {
    const seen: string[] = [];
    const onMessage = (message: Message) => seen.push(message.content);
    client.on(Events.MessageCreate, onMessage);
    try {
      const threadId = fake.createThread({
        parentId: generalId,
        name: 'secret',
        isPrivate: true,
        memberIds: [fake.user.id],
      });
      fake.sendUserMessage({ channelId: threadId, content: 'members only', mentionsBot: true });
      const hidden = await client.rest
        .get(`/channels/${threadId}/messages`)
        .catch((caught: unknown) => caught);
      expect(hidden).toMatchObject({ status: 403, code: 50001 });
      expect(client.channels.cache.has(threadId)).toBe(false);

      fake.addThreadMember(threadId, fake.bot.id);
      const thread = await fake.waitFor(() => client.channels.cache.get(threadId));
      expect(thread.type).toBe(12);
      fake.sendUserMessage({ channelId: threadId, content: 'now you see it' });
      await fake.waitFor(() => seen.includes('now you see it'));
      expect(seen).not.toContain(`<@${fake.bot.id}> members only`);
    } finally {
      client.off(Events.MessageCreate, onMessage);
    }
  });
});

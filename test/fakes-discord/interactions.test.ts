import {
  ActionRowBuilder,
  type AutocompleteInteraction,
  ButtonBuilder,
  type ButtonInteraction,
  ButtonStyle,
  type ChatInputCommandInteraction,
  type Client,
  DiscordAPIError,
  Events,
  type Interaction,
  MessageFlags,
  SlashCommandBuilder,
  type TextChannel,
} from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { connectClient } from './discord-client.ts';

describe('fake discord: interactions with the real client', () => {
  let fake: FakeDiscord;
  let client: Client<true>;
  let generalId: string;

  beforeAll(async () => {
    fake = await startFakeDiscord({ interactionResponseDeadlineMs: 500 });
    client = await connectClient(fake);
    generalId = fake.textChannelIds[0] ?? '';
  });
  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  function nextInteraction<Kind extends Interaction>(): Promise<Kind> {
    return new Promise((resolve) =>
      client.once(Events.InteractionCreate, (interaction) => resolve(interaction as Kind)),
    );
  }

  const imagine = new SlashCommandBuilder()
    .setName('imagine')
    .setDescription('Draw a picture')
    .addStringOption((option) => option.setName('prompt').setDescription('What to draw').setRequired(true))
    .addIntegerOption((option) => option.setName('count').setDescription('How many'))
    .addAttachmentOption((option) => option.setName('reference').setDescription('A reference image'));
  const model = new SlashCommandBuilder()
    .setName('model')
    .setDescription('Choose a model')
    .addStringOption((option) => option.setName('name').setDescription('Model').setAutocomplete(true));

  it('registers commands globally and per guild, answering with ids', async () => {
    const global = await client.application.commands.set([imagine.toJSON()]);
    const inGuild = await client.application.commands.set([imagine.toJSON(), model.toJSON()], fake.guildId);

    expect([...global.values()].map((command) => command.name)).toEqual(['imagine']);
    expect(global.first()?.id).toMatch(/^\d{17,19}$/);
    expect(fake.registeredCommands().map((command) => command.name)).toEqual(['imagine']);
    expect(fake.registeredCommands(fake.guildId).map((command) => command.name)).toEqual([
      'imagine',
      'model',
    ]);
    expect(inGuild.find((command) => command.name === 'model')?.guildId).toBe(fake.guildId);

    const again = await client.application.commands.set([imagine.toJSON()]);
    expect(again.first()?.id).toBe(global.first()?.id);
  });

  it('refuses command registrations that break Discord’s rules, listing what is wrong', async () => {
    const option = (name: string, extra: Record<string, unknown> = {}) => ({
      type: 3,
      name,
      description: `The ${name}`,
      ...extra,
    });
    const command = (extra: Record<string, unknown>) => ({ name: 'draw', description: 'Draw', ...extra });
    const refusals: [string, unknown[]][] = [
      ['an upper-case name', [command({ name: 'Draw' })]],
      ['a description over 100 characters', [command({ description: 'd'.repeat(101) })]],
      ['an empty description', [command({ description: '' })]],
      [
        'a required option after an optional one',
        [command({ options: [option('a'), option('b', { required: true })] })],
      ],
      ['two options of one name', [command({ options: [option('a'), option('a')] })]],
      ['26 options', [command({ options: Array.from({ length: 26 }, (_, index) => option(`o${index}`)) })]],
      [
        '26 choices',
        [
          command({
            options: [
              option('a', {
                choices: Array.from({ length: 26 }, (_, index) => ({
                  name: `c${index}`,
                  value: `c${index}`,
                })),
              }),
            ],
          }),
        ],
      ],
      [
        'a choice value over 100 characters',
        [command({ options: [option('a', { choices: [{ name: 'c', value: 'v'.repeat(101) }] })] })],
      ],
      [
        'autocomplete with choices',
        [command({ options: [option('a', { autocomplete: true, choices: [{ name: 'c', value: 'c' }] })] })],
      ],
      ['max_length over 6,000', [command({ options: [option('a', { max_length: 6001 })] })]],
      [
        'over 8,000 characters in all',
        [
          command({
            options: Array.from({ length: 25 }, (_, index) =>
              option(`o${index}`, {
                description: 'x'.repeat(100),
                choices: Array.from({ length: 25 }, (_, choice) => ({
                  name: `${choice}`.padEnd(100, 'n'),
                  value: `${choice}`,
                })),
              }),
            ),
          }),
        ],
      ],
      ['two commands of one name', [command({}), command({})]],
      ['101 commands', Array.from({ length: 101 }, (_, index) => command({ name: `c${index}` }))],
    ];
    for (const [what, body] of refusals) {
      const error = await client.application.commands
        .set(body as Parameters<typeof client.application.commands.set>[0], fake.guildId)
        .catch((caught: unknown) => caught);
      expect(error, what).toBeInstanceOf(DiscordAPIError);
      expect((error as DiscordAPIError).code, what).toBe(50035);
    }
    expect(fake.registeredCommands(fake.guildId)).toEqual([]);
    // Four of these the OpenAPI specification forbids as well; the fake's own rules refuse the rest.
    const forbidden = fake
      .takeSpecificationViolations()
      .map((violation) => violation.errors.find((error) => error.keyword !== 'enum'));
    expect(forbidden).toMatchObject([
      { instancePath: '/0/description', keyword: 'maxLength' },
      { instancePath: '/0/options', keyword: 'maxItems' },
      { instancePath: '/0/options/0/choices', keyword: 'maxItems' },
      { instancePath: '/0/options/0/max_length', keyword: 'maximum' },
    ]);
    await client.application.commands.set(
      [command({ options: [option('a', { required: true }), option('b')] })],
      fake.guildId,
    );
    expect(fake.registeredCommands(fake.guildId).map((registered) => registered.name)).toEqual(['draw']);
  });

  it('carries a slash command with typed options and an attachment, then defer, edit and follow-up land', async () => {
    await client.application.commands.set([imagine.toJSON()], fake.guildId);
    const png = createSolidPng({ widthPx: 2, heightPx: 2, colour: { red: 0, green: 128, blue: 0 } });
    const received = nextInteraction<ChatInputCommandInteraction>();

    const interactionId = fake.sendSlashCommand({
      name: 'imagine',
      channelId: generalId,
      options: { prompt: 'a green square', count: 2 },
      attachments: { reference: { filename: 'ref.png', contentType: 'image/png', bytes: png } },
    });
    const interaction = await received;
    expect(interaction.id).toBe(interactionId);
    expect(interaction.isChatInputCommand()).toBe(true);
    expect(interaction.options.getString('prompt')).toBe('a green square');
    expect(interaction.options.getInteger('count')).toBe(2);
    expect(interaction.options.getAttachment('reference')?.contentType).toBe('image/png');
    expect(interaction.user.id).toBe(fake.user.id);
    expect(interaction.attachmentSizeLimit).toBe(10 * 1024 * 1024);
    expect(interaction.appPermissions.has('SendMessages')).toBe(true);

    await interaction.deferReply();
    const original = fake.message(fake.interaction(interactionId)?.originalMessageId ?? '');
    expect(original?.flags).toBe(MessageFlags.Loading);
    await interaction.editReply({
      content: 'Here is your picture',
      files: [{ attachment: png, name: 'out.png' }],
    });
    const followUp = await interaction.followUp('And one more thing');

    const stored = fake.interaction(interactionId);
    expect(stored?.responses.map((response) => response.type)).toEqual([5]);
    expect(fake.message(stored?.originalMessageId ?? '')?.content).toBe('Here is your picture');
    expect(fake.message(stored?.originalMessageId ?? '')?.flags).toBe(0);
    expect(fake.uploadedFiles(stored?.originalMessageId ?? '')[0]?.filename).toBe('out.png');
    expect(stored?.followUpMessageIds).toEqual([followUp.id]);
    expect(fake.messages(generalId).map((message) => message.content)).toEqual([
      'Here is your picture',
      'And one more thing',
    ]);
    expect(
      fake.requests.map(
        (call) => `${call.method} ${call.path.replace(/\d{17,19}|fake-interaction-\S+?(?=\/|$)/g, ':id')}`,
      ),
    ).toEqual([
      'PUT /applications/:id/guilds/:id/commands',
      'POST /interactions/:id/:id/callback',
      'PATCH /webhooks/:id/:id/messages/@original',
      'POST /webhooks/:id/:id',
    ]);
  });

  it('answers with_response callbacks and keeps ephemeral replies off the gateway', async () => {
    const seen: string[] = [];
    const onMessage = (message: { content: string }) => seen.push(message.content);
    client.on(Events.MessageCreate, onMessage);
    const received = nextInteraction<ChatInputCommandInteraction>();
    const interactionId = fake.sendSlashCommand({ name: 'help', channelId: generalId });
    const interaction = await received;

    const response = await interaction.reply({
      content: 'only you see this',
      flags: MessageFlags.Ephemeral,
      withResponse: true,
    });
    expect(response.resource?.message?.content).toBe('only you see this');
    await interaction.followUp('everyone sees this');
    await fake.waitFor(() => seen.includes('everyone sees this'));
    client.off(Events.MessageCreate, onMessage);

    expect(seen).not.toContain('only you see this');
    expect(fake.message(fake.interaction(interactionId)?.originalMessageId ?? '')?.flags).toBe(
      MessageFlags.Ephemeral,
    );
  });

  it('turns the first follow-up after a deferred reply into an edit of the loading message, with the defer’s privacy', async () => {
    let received = nextInteraction<ChatInputCommandInteraction>();
    const publicId = fake.sendSlashCommand({ name: 'help', channelId: generalId });
    const publicInteraction = await received;
    await publicInteraction.deferReply();
    const first = await publicInteraction.followUp({
      content: 'meant to be private',
      flags: MessageFlags.Ephemeral,
    });
    const second = await publicInteraction.followUp({
      content: 'a second one',
      flags: MessageFlags.Ephemeral,
    });
    const publicOriginal = fake.interaction(publicId)?.originalMessageId;
    // The first follow-up landed in the public loading message; only the second is new and private.
    expect(first.id).toBe(publicOriginal);
    expect(fake.message(first.id)).toMatchObject({ content: 'meant to be private', flags: 0 });
    expect(fake.message(second.id)?.flags).toBe(MessageFlags.Ephemeral);

    received = nextInteraction<ChatInputCommandInteraction>();
    const privateId = fake.sendSlashCommand({ name: 'help', channelId: generalId });
    const privateInteraction = await received;
    await privateInteraction.deferReply({ flags: MessageFlags.Ephemeral });
    const answer = await privateInteraction.followUp('no flags given');
    expect(answer.id).toBe(fake.interaction(privateId)?.originalMessageId);
    expect(fake.message(answer.id)?.flags).toBe(MessageFlags.Ephemeral);
    // Once the loading message is gone, a follow-up is a message of its own.
    received = nextInteraction<ChatInputCommandInteraction>();
    const deletedId = fake.sendSlashCommand({ name: 'help', channelId: generalId });
    const deleted = await received;
    await deleted.deferReply();
    await deleted.deleteReply();
    const afterDelete = await deleted.followUp({
      content: 'private after all',
      flags: MessageFlags.Ephemeral,
    });
    expect(afterDelete.id).not.toBe(fake.interaction(deletedId)?.originalMessageId);
    expect(fake.message(afterDelete.id)?.flags).toBe(MessageFlags.Ephemeral);
  });

  it('takes a reply with a file in a thread, and a command in a DM', async () => {
    let received = nextInteraction<ChatInputCommandInteraction>();
    const inThread = fake.sendSlashCommand({
      name: 'imagine',
      channelId: fake.threadId,
      options: { prompt: 'x' },
    });
    const threadInteraction = await received;
    expect(threadInteraction.channel?.isThread()).toBe(true);
    const png = createSolidPng({ widthPx: 1, heightPx: 1, colour: { red: 1, green: 2, blue: 3 } });
    await threadInteraction.reply({ content: 'drawn', files: [{ attachment: png, name: 'x.png' }] });
    const original = fake.interaction(inThread)?.originalMessageId ?? '';
    expect(fake.messages(fake.threadId).map((message) => message.id)).toEqual([original]);
    expect(Buffer.from(fake.uploadedFiles(original)[0]?.bytes ?? [])).toEqual(png);

    received = nextInteraction<ChatInputCommandInteraction>();
    const dmChannelId = fake.directMessageChannel();
    fake.sendSlashCommand({ name: 'help', channelId: dmChannelId });
    const inDm = await received;
    expect(inDm.inGuild()).toBe(false);
    expect(inDm.user.id).toBe(fake.user.id);
    await inDm.reply('hello in private');
    expect(fake.messages(dmChannelId).map((message) => message.content)).toEqual(['hello in private']);
  });

  it('refuses a second acknowledgement and a first one after the deadline', async () => {
    let received = nextInteraction<ChatInputCommandInteraction>();
    fake.sendSlashCommand({ name: 'help', channelId: generalId });
    const first = await received;
    await first.reply('hi');
    const twice = await first.client.rest
      .post(`/interactions/${first.id}/${first.token}/callback`, {
        body: { type: 4, data: { content: 'again' } },
        auth: false,
      })
      .catch((caught: unknown) => caught);
    expect((twice as DiscordAPIError).code).toBe(40060);

    received = nextInteraction<ChatInputCommandInteraction>();
    fake.sendSlashCommand({ name: 'help', channelId: generalId });
    const late = await received;
    await new Promise((resolve) => setTimeout(resolve, 600));
    const error = await late.deferReply().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect((error as DiscordAPIError).code).toBe(10062);
  });

  it('delivers a button click as a ButtonInteraction and applies update()', async () => {
    const channel = client.channels.cache.get(generalId) as TextChannel;
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('stop').setLabel('Stop').setStyle(ButtonStyle.Danger),
    );
    const sent = await channel.send({ content: 'Streaming…', components: [row] });
    const received = nextInteraction<ButtonInteraction>();

    const interactionId = fake.clickButton({ messageId: sent.id, customId: 'stop' });
    const interaction = await received;
    expect(interaction.isButton()).toBe(true);
    expect(interaction.customId).toBe('stop');
    expect(interaction.message.id).toBe(sent.id);

    await interaction.update({ content: 'Stopped.', components: [] });
    expect(fake.message(sent.id)?.content).toBe('Stopped.');
    expect(fake.message(sent.id)?.components).toEqual([]);
    expect(fake.interactionResponses(interactionId).map((response) => response.type)).toEqual([7]);
    expect(() => fake.clickButton({ messageId: sent.id, customId: 'regenerate' })).toThrow(/no component/);
  });

  it('carries autocomplete with the focused option and records the choices', async () => {
    await client.application.commands.set([model.toJSON()], fake.guildId);
    const received = nextInteraction<AutocompleteInteraction>();
    const interactionId = fake.sendAutocomplete({
      name: 'model',
      channelId: generalId,
      focused: { name: 'name', value: 'gp' },
    });
    const interaction = await received;
    expect(interaction.isAutocomplete()).toBe(true);
    expect(interaction.options.getFocused(true)).toMatchObject({ name: 'name', value: 'gp' });

    await interaction.respond([{ name: 'gpt-4o', value: 'gpt-4o' }]);
    expect(fake.interactionResponses(interactionId)).toMatchObject([
      { type: 8, data: { choices: [{ name: 'gpt-4o', value: 'gpt-4o' }] } },
    ]);
  });

  it('refuses autocomplete results beyond 25 choices, or with a choice over 100 characters', async () => {
    await client.application.commands.set([model.toJSON()], fake.guildId);
    const respondWith = async (choices: { name: string; value: string }[]) => {
      const received = nextInteraction<AutocompleteInteraction>();
      fake.sendAutocomplete({ name: 'model', channelId: generalId, focused: { name: 'name', value: '' } });
      return (await received).respond(choices);
    };
    const choice = (text: string) => ({ name: text, value: text });
    await expect(
      respondWith(Array.from({ length: 26 }, (_, index) => choice(`model-${index}`))),
    ).rejects.toMatchObject({ code: 50035 });
    await expect(respondWith([choice('m'.repeat(101))])).rejects.toMatchObject({ code: 50035 });
    // The OpenAPI specification forbids both as well.
    const forbidden = fake
      .takeSpecificationViolations()
      .map((violation) =>
        violation.errors.find((error) => error.keyword === 'maxItems' || error.keyword === 'maxLength'),
      );
    expect(forbidden).toMatchObject([
      { instancePath: '/data/choices', keyword: 'maxItems', params: { limit: 25 } },
      { instancePath: '/data/choices/0/name', keyword: 'maxLength', params: { limit: 100 } },
    ]);
    await expect(
      respondWith(Array.from({ length: 25 }, (_, index) => choice(`${index}`.padEnd(100, 'm')))),
    ).resolves.toBeUndefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention, buttonClick, slashCommand } from '../fakes/slack/index.ts';
import { finishedReplies } from '../slack/reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * /export and /forget me on Discord and Slack (issue 26), end to end through the fakes: the export
 * arrives as a JSON file in the person's DM with the bot, and Forget, pressed by the asker alone,
 * removes their turns and the replies to them while another person's stay.
 */
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('Discord: /export and /forget me', () => {
  let under: DiscordUnderTest;
  beforeAll(async () => {
    under = await startDiscordUnderTest();
  }, 30_000);
  afterAll(() => under.close());

  it('sends the export to the DM and forgets only the asker, after their own press', async () => {
    const ada = under.discord.createUser({ username: 'ada' });
    const bob = under.discord.createUser({ username: 'bob' });
    const channelId = under.generalChannelId;
    for (const [author, text, answer] of [
      [ada.id, 'my cat is called Miso', 'A fine name.'],
      [bob.id, 'my dog is called Rex', 'Good dog.'],
    ] as const) {
      under.gateway.enqueue({ text: answer });
      const before = under.botMessages(channelId).length;
      under.discord.sendUserMessage({ channelId, author, content: text, mentionsBot: true });
      await under.discord.waitFor(() =>
        under
          .botMessages(channelId)
          .slice(before)
          .find((m) => m.content.includes(answer)),
      );
    }
    await pause(300);

    const dm = under.discord.directMessageChannel(ada.id);
    under.discord.sendSlashCommand({ name: 'export', channelId, user: ada.id });
    const exported = await under.discord.waitFor(() =>
      under
        .botMessages(dm)
        .find((message) => message.attachments.some((file) => file.filename.endsWith('.json'))),
    );
    const file = exported.attachments.find((attachment) => attachment.filename.endsWith('.json'));
    const json = JSON.parse(await (await fetch(file?.url ?? '')).text());
    const texts = json.data.history.flatMap((conversation: { turns: Array<{ text: string }> }) =>
      conversation.turns.map((turn) => turn.text),
    );
    expect(texts).toEqual(['my cat is called Miso', 'A fine name.']);

    under.discord.sendSlashCommand({ name: 'forget', subcommand: 'me', channelId, user: ada.id });
    const confirmation = await under.discord.waitFor(() =>
      under.botMessages(channelId).find((message) => /cannot be undone/.test(message.content)),
    );
    const customId = /"custom_id":"(parley:data\.forget:[^"]+)"/.exec(
      JSON.stringify(confirmation.components),
    )?.[1];
    expect(customId).toBeDefined();

    under.discord.clickButton({ messageId: confirmation.id, customId: customId ?? '', user: bob.id });
    await under.discord.waitFor(() =>
      under
        .botMessages(channelId)
        .find((message) => /Only the person who asked can confirm this/.test(message.content)),
    );
    const conversationKey = `discord:${under.discord.guildId}:${channelId}`;
    expect(await under.services.history.load(conversationKey)).toHaveLength(4);

    under.discord.clickButton({ messageId: confirmation.id, customId: customId ?? '', user: ada.id });
    await under.discord.waitFor(() =>
      under
        .botMessages(channelId)
        .find((message) => /Done: parley no longer keeps anything about you/.test(message.content)),
    );
    expect((await under.services.history.load(conversationKey)).map((turn) => turn.text)).toEqual([
      'my dog is called Rex',
      'Good dog.',
    ]);
  }, 30_000);
});

describe('Slack: /export and /forget me', () => {
  const ada = 'U0ADA00001';
  const bob = 'U0BOB00001';
  const channel = 'C0FORGET01';
  let bot: SlackUnderTest;
  beforeAll(async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      prepare: (slack) => {
        slack.addUser({ id: ada, name: 'ada' });
        slack.addUser({ id: bob, name: 'bob' });
      },
    });
  }, 30_000);
  afterAll(() => bot.close());

  it('uploads the export to the app DM and forgets the asker once they press Forget', async () => {
    for (const [user, text, answer] of [
      [ada, 'my cat is called Miso', 'A fine name.'],
      [bob, 'my dog is called Rex', 'Good dog.'],
    ] as const) {
      bot.gateway.enqueue({ text: answer });
      const mention = appMention({ channel, text, user });
      await bot.deliverEvent(mention);
      await finishedReplies(bot, channel, String(mention.ts));
    }
    const exportOf = (userId: string) => bot.app.personData.export({ person: { platform: 'slack', userId } });
    const [adaConversation] = (await exportOf(ada)).data['people-index'] as string[];
    expect(adaConversation).toBeDefined();

    await bot.deliverCommand(slashCommand({ command: '/export', user: ada, channel }));
    const upload = await bot.slack.waitFor(
      () => bot.slack.uploadedFiles.find((file) => file.name.endsWith('.json')),
      10_000,
    );
    expect(upload.channel).toMatch(/^D/);
    const json = JSON.parse(upload.bytes.toString('utf8'));
    expect(json.person).toEqual({ platform: 'slack', userId: ada });
    expect(JSON.stringify(json.data.history)).toContain('my cat is called Miso');
    expect(JSON.stringify(json.data.history)).not.toContain('Rex');

    const said = () =>
      JSON.stringify([bot.slack.calls.map((call) => call.arguments), bot.slack.responseUrlPosts]);
    const seen = bot.slack.responseUrlPosts.length;
    await bot.deliverCommand(slashCommand({ command: '/forget', user: ada, channel, text: 'me' }));
    const asked = await bot.slack.waitFor(
      () =>
        bot.slack.responseUrlPosts.slice(seen).find((post) => /cannot be undone/.test(JSON.stringify(post))),
      10_000,
    );
    const actionId = /"action_id":"(parley:data\.forget:[^"]+)"/.exec(JSON.stringify(asked))?.[1] ?? '';
    expect(actionId).not.toBe('');
    const before = said().length;
    await bot.deliverInteraction(buttonClick({ actionId, messageTs: '1.000001', channel, user: bob }));
    await bot.slack.waitFor(
      () => /Only the person who asked can confirm this/.test(said().slice(before)) || undefined,
      10_000,
    );
    expect(await bot.services.history.load(adaConversation ?? '')).toHaveLength(2);
    await bot.deliverInteraction(buttonClick({ actionId, messageTs: '1.000001', channel, user: ada }));
    await bot.slack.waitFor(
      () => /Done: parley no longer keeps anything about you/.test(said()) || undefined,
      10_000,
    );
    expect(await bot.services.history.load(adaConversation ?? '')).toEqual([]);
    expect(JSON.stringify((await exportOf(bob)).data.history)).toContain('Good dog.');
  }, 40_000);
});

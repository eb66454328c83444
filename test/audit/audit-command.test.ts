import { afterEach, describe, expect, it } from 'vitest';
import { slashCommand } from '../fakes/slack/index.ts';
import { startSlackUnderTest } from '../slack/slack-under-test.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';
import { makeDiscordAdmin, runDiscordConfig } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * /audit on all three platforms: a deed done at the place (a setting changed, a refused person) is
 * in the trail an admin reads, with who did it; the trail of one server is not another's.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('/audit', () => {
  it('shows a Discord admin the settings changed and the refusals of their server', async () => {
    const under: DiscordUnderTest = await startDiscordUnderTest({});
    closers.push(() => under.close());
    const admin = makeDiscordAdmin(under);
    const mallory = under.discord.createUser({ username: 'mallory' });
    await runDiscordConfig(under, {
      admin,
      options: { setting: 'ACCESS_BLOCK_USER_IDS', value: `<@${mallory.id}>` },
    });
    under.discord.sendUserMessage({
      channelId: under.generalChannelId,
      author: mallory.id,
      content: 'hello?',
      mentionsBot: true,
    });
    // A refused mention is told privately, in a DM.
    const dm = under.discord.directMessageChannel(mallory.id);
    await under.discord.waitFor(() =>
      under.botMessages(dm).find((message) => /cannot use parley/.test(message.content)),
    );
    const before = under.botMessages(under.generalChannelId).length;
    under.discord.sendSlashCommand({ name: 'audit', channelId: under.generalChannelId, user: admin.id });
    const trail = await under.discord.waitFor(() =>
      under
        .botMessages(under.generalChannelId)
        .slice(before)
        .find((message) => message.content.includes('Audit trail of this server')),
    );
    expect(trail.flags & 64).toBe(64);
    expect(trail.content).toMatch(/config-change · `grace`: `ACCESS_BLOCK_USER_IDS for this server is now/);
    expect(trail.content).toMatch(/access-refused · `mallory`: `\/chat refused: blocked-user/);
    // Newest first: the refusal came after the change.
    expect(trail.content.indexOf('access-refused')).toBeLessThan(trail.content.indexOf('config-change'));

    const filtered = under.botMessages(under.generalChannelId).length;
    under.discord.sendSlashCommand({
      name: 'audit',
      channelId: under.generalChannelId,
      user: admin.id,
      options: { kind: 'config-change' },
    });
    const onlyChanges = await under.discord.waitFor(() =>
      under
        .botMessages(under.generalChannelId)
        .slice(filtered)
        .find((message) => message.content.includes('Audit trail')),
    );
    expect(onlyChanges.content).not.toContain('access-refused');
  });

  it('shows a Slack workspace admin the settings changed there', async () => {
    const bot = await startSlackUnderTest({
      mode: 'http',
      prepare: (slack) => slack.addUser({ id: 'U0ADMIN001', name: 'grace', isAdmin: true }),
    });
    closers.push(() => bot.close());
    await bot.deliverCommand(
      slashCommand({
        command: '/config',
        user: 'U0ADMIN001',
        channel: 'C0AUDIT001',
        text: 'set MEMORY user',
      }),
    );
    await bot.slack.waitFor(() =>
      bot.slack.responseUrlPosts.find((post) => JSON.stringify(post).includes('MEMORY for this workspace')),
    );
    const seen = bot.slack.responseUrlPosts.length;
    await bot.deliverCommand(
      slashCommand({
        command: '/audit',
        user: 'U0ADMIN001',
        channel: 'C0AUDIT001',
        text: '--kind config-change',
      }),
    );
    const trail = await bot.slack.waitFor(() =>
      bot.slack.responseUrlPosts.slice(seen).find((post) => JSON.stringify(post).includes('Audit trail')),
    );
    expect(JSON.stringify(trail)).toMatch(/config-change · `grace`: `MEMORY for this workspace is now user/);
  });

  it('shows the terminal owner what was changed in the terminal', async () => {
    const bot: ConsoleUnderTest = await startConsoleUnderTest({});
    closers.push(() => bot.close());
    const printed = await bot.type('/config set MEMORY user', '/audit');
    expect(printed).toMatch(/Audit trail[\s\S]*config-change[\s\S]*MEMORY/);
  });
});

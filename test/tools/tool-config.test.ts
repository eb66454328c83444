import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../src/tools/tool.ts';
import { slashCommand, viewSubmission } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { makeDiscordAdmin } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { testTool } from '../support/test-tools.ts';

/**
 * /config knows the tools parley has (issue 25): Discord's autocomplete suggests them for TOOLS and
 * TOOL_ROLE_IDS within Discord's limits, and Slack's /config modal offers TOOLS as a multi-select.
 * Real discord.js and Bolt against the fakes, which check those limits.
 */
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Tools as an MCP server `files` lists them (`files_<tool>`), and thirty of a server `bulk`. */
const serverTools: Tool[] = [
  testTool({ name: 'files_read_text_file', source: 'files' }),
  testTool({ name: 'files_write_file', source: 'files' }),
];
const bulkTools: Tool[] = Array.from({ length: 30 }, (_, index) =>
  testTool({ name: `bulk_tool_${String(index).padStart(2, '0')}`, source: 'bulk' }),
);

describe('Discord autocomplete of /config values', () => {
  async function suggestionsFor(
    under: DiscordUnderTest,
    admin: { id: string },
    setting: string,
    typed: string,
  ) {
    const interactionId = under.discord.sendAutocomplete({
      name: 'config',
      subcommand: 'set',
      channelId: under.generalChannelId,
      user: admin.id,
      options: { setting },
      focused: { name: 'value', value: typed },
    });
    const response = await under.discord.waitFor(() => under.discord.interactionResponses(interactionId)[0]);
    expect(response.type).toBe(8);
    return ((response.data as { choices: { name: string; value: string }[] }).choices ?? []).map((choice) => {
      expect(choice.name).toBe(choice.value);
      return choice.value;
    });
  }

  it('suggests the tools listed now for TOOLS and TOOL_ROLE_IDS, completing the last item typed', async () => {
    const under = await startDiscordUnderTest({ CHAT_MODEL: 'tools-model' });
    close = () => under.close();
    under.app.toolbox.replace('files', serverTools);
    under.app.toolbox.replace('bulk', bulkTools);
    const admin = makeDiscordAdmin(under);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(await suggestionsFor(under, admin, 'TOOLS', 'files_')).toEqual([
      'files_*',
      'files_read_text_file',
      'files_write_file',
    ]);
    // The items before the last are kept as typed; a name already listed is not offered again.
    expect(await suggestionsFor(under, admin, 'TOOLS', 'files_write_file, files_')).toEqual([
      'files_write_file, files_*',
      'files_write_file, files_read_text_file',
    ]);
    // Thirty-odd candidates: Discord takes at most 25.
    const all = await suggestionsFor(under, admin, 'TOOLS', '');
    expect(all).toHaveLength(25);
    expect(all.slice(0, 4)).toEqual(['default', 'all', 'none', 'files_*']);
    expect(await suggestionsFor(under, admin, 'TOOL_ROLE_IDS', 'files_w')).toEqual(['files_write_file=']);
    expect(await suggestionsFor(under, admin, 'TOOL_ROLE_IDS', 'files_write_file=1')).toEqual([]);
    // A completion longer than Discord's 100 characters for a choice is left out, never cut.
    const long = `${bulkTools
      .slice(0, 6)
      .map((tool) => tool.name)
      .join(', ')}, files_`;
    expect(long.length).toBe(90);
    // files_write_file makes exactly 100 characters; files_read_text_file would make 104.
    expect(await suggestionsFor(under, admin, 'TOOLS', long)).toEqual([`${long}*`, `${long}write_file`]);
  });
});

describe('the /config modal on Slack', () => {
  const admin = 'U0ADMIN001';
  async function openConfigModal(bot: SlackUnderTest, channel: string) {
    const before = bot.slack.openedViews.length;
    await bot.deliverCommand(slashCommand({ command: '/config', user: admin, channel }));
    return (await bot.slack.waitFor(() => bot.slack.openedViews[before])).view;
  }
  type InputBlock = {
    type: string;
    block_id?: string;
    element?: { type: string; options?: { value: string }[]; initial_options?: { value: string }[] };
  };
  const blockOf = (view: Record<string, unknown>, blockId: string) =>
    (view.blocks as InputBlock[]).find((block) => block.block_id === blockId);

  it('offers TOOLS as a multi-select of the tools listed now, and a choice takes effect', async () => {
    const bot = await startSlackUnderTest({ mode: 'http', environment: { CHAT_MODEL: 'tools-model' } });
    close = () => bot.close();
    bot.slack.addUser({ id: admin, name: 'grace', isAdmin: true });
    bot.app.toolbox.replace('files', serverTools);
    const view = await openConfigModal(bot, 'C0TOOLCFG1');
    const menu = blockOf(view, 'channel.TOOLS')?.element;
    expect(menu?.type).toBe('multi_static_select');
    expect(menu?.options?.map((option) => option.value)).toEqual(
      expect.arrayContaining(['all', 'none', 'files_*', 'files_read_text_file', 'files_write_file']),
    );
    // TOOL_ROLE_IDS pairs tools with roles: a text box.
    expect(blockOf(view, 'server.TOOL_ROLE_IDS')?.element?.type).toBe('plain_text_input');

    await bot.deliverInteraction(
      viewSubmission({
        view,
        user: admin,
        values: { 'channel.TOOLS': 'files_read_text_file, files_write_file' },
      }),
    );
    const confirmation = await bot.slack.waitFor(() =>
      bot.slack.ephemeralMessages.find((message) => message.text.includes('TOOLS')),
    );
    expect(confirmation.text).toContain('files_read_text_file, files_write_file');

    // Opened again, the menu shows what is set, even a tool whose server is down meanwhile.
    bot.app.toolbox.replace('files', serverTools.slice(0, 1));
    const again = await openConfigModal(bot, 'C0TOOLCFG1');
    expect(blockOf(again, 'channel.TOOLS')?.element?.initial_options?.map((option) => option.value)).toEqual([
      'files_read_text_file',
      'files_write_file',
    ]);
  });

  it('keeps a text box for TOOLS when there are more tools than a menu may offer (100)', async () => {
    const bot = await startSlackUnderTest({ mode: 'http', environment: { CHAT_MODEL: 'tools-model' } });
    close = () => bot.close();
    bot.slack.addUser({ id: admin, name: 'grace', isAdmin: true });
    bot.app.toolbox.replace(
      'bulk',
      Array.from({ length: 100 }, (_, index) => testTool({ name: `bulk_tool_${index}`, source: 'bulk' })),
    );
    const view = await openConfigModal(bot, 'C0TOOLCFG2');
    expect(blockOf(view, 'channel.TOOLS')?.element?.type).toBe('plain_text_input');
  });
});

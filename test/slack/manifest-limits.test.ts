import { describe, expect, it } from 'vitest';
import { buildSlackManifest, type SlackManifest } from '../../adapters/slack/app-manifest.ts';
import { messageShortcuts } from '../../adapters/slack/message-shortcuts.ts';

// The limits of the manifest, each as @slack/web-api's manifest types document it
// (node_modules/@slack/web-api/dist/types/request/manifest.d.ts, from docs.slack.dev/reference/app-manifest).
const limits = {
  displayDescription: 140,
  agentDescription: 300,
  suggestedPrompts: 4,
  shortcuts: 10,
  shortcutCallbackId: 255,
  shortcutDescription: 150,
  slashCommands: 50,
  commandName: 32,
  commandDescription: 2_000,
  usageHint: 1_000,
};

function checkLimits(manifest: SlackManifest): string[] {
  const problems: string[] = [];
  const features = manifest.features ?? {};
  if ((manifest.display_information.description ?? '').length > limits.displayDescription)
    problems.push('display_information.description');
  const view = features.agent_view ?? features.assistant_view;
  const description =
    features.agent_view?.agent_description ?? features.assistant_view?.assistant_description ?? '';
  if (description.length > limits.agentDescription) problems.push('agent description');
  if ((view?.suggested_prompts ?? []).length > limits.suggestedPrompts) problems.push('suggested_prompts');
  const shortcuts = features.shortcuts ?? [];
  if (shortcuts.length > limits.shortcuts) problems.push('shortcuts');
  for (const shortcut of shortcuts) {
    if (shortcut.callback_id.length > limits.shortcutCallbackId)
      problems.push(`${shortcut.name} callback_id`);
    if (shortcut.description.length > limits.shortcutDescription)
      problems.push(`${shortcut.name} description`);
  }
  const commands = features.slash_commands ?? [];
  if (commands.length > limits.slashCommands) problems.push('slash_commands');
  for (const command of commands) {
    if (command.command.length > limits.commandName) problems.push(`${command.command} name`);
    if (command.description.length > limits.commandDescription)
      problems.push(`${command.command} description`);
    if ((command.usage_hint ?? '').length > limits.usageHint) problems.push(`${command.command} usage_hint`);
  }
  return problems;
}

describe('the Slack manifest against Slack limits', () => {
  it('stays inside every limit, with the longest prefix a command name leaves room for', () => {
    expect(checkLimits(buildSlackManifest())).toEqual([]);
    expect(checkLimits(buildSlackManifest({ commandPrefix: 'parley-', experience: 'assistant' }))).toEqual(
      [],
    );
  });

  it('catches a manifest over a limit (the check is not vacuous)', () => {
    const manifest = buildSlackManifest();
    const tooMany = [...messageShortcuts, ...messageShortcuts, ...messageShortcuts, ...messageShortcuts];
    manifest.features = {
      ...manifest.features,
      shortcuts: tooMany.map((shortcut) => ({
        name: shortcut.name,
        type: 'message',
        callback_id: shortcut.callbackId,
        description: shortcut.description.repeat(5),
      })),
    };
    expect(checkLimits(manifest)).toEqual(
      expect.arrayContaining(['shortcuts', 'Ask parley about this description']),
    );
  });

  it('declares agent_view with its events; --assistant-view keeps assistant_view and its events for an older app', () => {
    const agent = buildSlackManifest();
    expect(agent.features?.agent_view?.agent_description).toBeTruthy();
    expect(agent.features?.assistant_view).toBeUndefined();
    expect(agent.features?.app_home?.home_tab_enabled).toBe(true);
    expect(agent.settings?.event_subscriptions?.bot_events).toEqual(
      expect.arrayContaining(['app_home_opened', 'app_context_changed', 'agent_session_stopped']),
    );
    expect(agent.settings?.event_subscriptions?.bot_events).not.toContain('assistant_thread_started');

    const assistant = buildSlackManifest({ experience: 'assistant' });
    expect(assistant.features?.agent_view).toBeUndefined();
    expect(assistant.features?.assistant_view?.assistant_description).toBe(
      agent.features?.agent_view?.agent_description,
    );
    expect(assistant.settings?.event_subscriptions?.bot_events).toEqual(
      expect.arrayContaining(['assistant_thread_started', 'assistant_thread_context_changed']),
    );
  });

  it('lists the three message shortcuts, each with a callback id the adapter answers', () => {
    expect(
      buildSlackManifest().features?.shortcuts?.map((shortcut) => [shortcut.type, shortcut.name]),
    ).toEqual([
      ['message', 'Ask parley about this'],
      ['message', 'Summarize from here'],
      ['message', 'Extract data'],
    ]);
  });
});

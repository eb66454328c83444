import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discordEntryPoints, slackEntryPoints, terminalEntryPoints } from './entry-points.ts';

/**
 * The access matrices can only try the entry points they list. This test reads what each adapter
 * actually listens to and fails when a handler has no row in the matrix (or a stated reason why it
 * cannot spend or reveal anything), so a new entry point cannot land without being tried.
 */
const root = resolve(import.meta.dirname, '../..');
const sourceOf = (folder: string) =>
  readdirSync(join(root, folder))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => readFileSync(join(root, folder, name), 'utf8'))
    .join('\n');

/** Handlers that reach no model and no one's data, each with why. */
const exempt: Record<string, string> = {
  'discord:autocomplete': 'suggests option values (models, settings) from configuration; no model call',
  'slack:event:app_home_opened': 'publishes the App Home view of the person themself; no model call',
  'slack:event:app_context_changed': 'updates suggested prompts; no model call',
  'slack:event:assistant_thread_started': 'sets suggested prompts; no model call',
  'slack:event:assistant_thread_context_changed': 'sets suggested prompts; no model call',
  'slack:event:agent_session_stopped': 'stops the person’s own native stream; no model call',
  'slack:event:app_uninstalled':
    'sent by Slack itself in a signed envelope; removes the installation of the envelope’s own team or org, reaches no model and shows nothing (test/slack/many-workspaces.test.ts)',
  'slack:event:tokens_revoked':
    'sent by Slack itself in a signed envelope; removes the installation whose bot token was revoked, reaches no model and shows nothing (test/slack/many-workspaces.test.ts)',
  'slack:view:forms': '/config’s modal: its submission checks admin like /config (its rows are config’s)',
};

/** Which matrix rows try each handler kind. */
const discordRows: Record<string, readonly string[]> = {
  'discord:message-create': ['mention', 'direct-message'],
  'discord:chat-input-command': discordEntryPoints.filter((row) => row.startsWith('slash-command:')),
  'discord:message-context-menu-command': ['message-command:ask'],
  'discord:modal-submit': ['message-command:ask'],
  'discord:button': ['button:regenerate', 'button:stop-another'],
};
const slackRows: Record<string, readonly string[]> = {
  'slack:event:app_mention': ['mention'],
  'slack:event:message': ['direct-message'],
  'slack:command': slackEntryPoints.filter((row) => row.startsWith('slash-command:')),
  'slack:shortcut': ['message-shortcut:ask'],
  'slack:view:ask': ['message-shortcut:ask'],
  'slack:action': ['button:regenerate'],
};

function discordHandlers(): string[] {
  const source = sourceOf('adapters/discord');
  const kinds = [
    ...source.matchAll(
      /interaction\.is(Autocomplete|ChatInputCommand|MessageContextMenuCommand|ModalSubmit|Button)\(\)/g,
    ),
  ].map((match) => `discord:${kebab(match[1] ?? '')}`);
  if (/client\.on\(Events\.MessageCreate/.test(source)) kinds.push('discord:message-create');
  return [...new Set(kinds)];
}

function slackHandlers(): string[] {
  const source = sourceOf('adapters/slack');
  const kinds: string[] = [];
  for (const match of source.matchAll(/app\.event\(\s*'([a-z_]+)'/g)) kinds.push(`slack:event:${match[1]}`);
  // Events registered from a list: `for (const name of ['a', 'b'] as const) app.event(name, …)`.
  for (const match of source.matchAll(
    /for \(const name of \[([^\]]+)\] as const\)\s*\{\s*app\.event\(name/g,
  )) {
    for (const name of (match[1] ?? '').matchAll(/'([a-z_]+)'/g)) kinds.push(`slack:event:${name[1]}`);
  }
  if (/app\.command\(/.test(source)) kinds.push('slack:command');
  if (/app\.shortcut</.test(source) || /app\.shortcut\(/.test(source)) kinds.push('slack:shortcut');
  if (/app\.action</.test(source) || /app\.action\(/.test(source)) kinds.push('slack:action');
  if (/callback_id: askCallbackId/.test(source)) kinds.push('slack:view:ask');
  if (/callback_id: new RegExp\(`\^\$\{callbackPrefix\}`\)/.test(source)) kinds.push('slack:view:forms');
  return [...new Set(kinds)];
}

function kebab(name: string): string {
  return name.replace(
    /[A-Z]/g,
    (letter, index: number) => `${index === 0 ? '' : '-'}${letter.toLowerCase()}`,
  );
}

describe('every entry point has its rows in the access matrix', () => {
  it('finds the handlers it reads (so a changed registration style cannot hide them)', () => {
    expect(discordHandlers()).toEqual(
      expect.arrayContaining(['discord:message-create', 'discord:chat-input-command', 'discord:button']),
    );
    expect(slackHandlers()).toEqual(
      expect.arrayContaining(['slack:event:app_mention', 'slack:command', 'slack:action', 'slack:shortcut']),
    );
  });

  it.each([
    ['Discord', 'adapters/discord', discordEntryPoints],
    ['Slack', 'adapters/slack', slackEntryPoints],
    ['The terminal', 'adapters/console', terminalEntryPoints],
  ] as const)(
    '%s: a platform whose places take scheduled runs has a scheduled-run row',
    (_, folder, rows) => {
      // A scheduled run is an entry point with nobody at the keyboard: the adapter only lends it places.
      expect(sourceOf(folder)).toMatch(/services\.platformPlaces\.register\(/);
      expect(rows).toContain('scheduled-run');
    },
  );

  it.each([
    ['Discord', discordHandlers, discordRows],
    ['Slack', slackHandlers, slackRows],
  ] as const)('%s: each handler is tried by a matrix row or is exempt with a reason', (_, handlers, rows) => {
    const uncovered = handlers().filter(
      (kind) => exempt[kind] === undefined && (rows[kind] ?? []).length === 0,
    );
    expect(uncovered).toEqual([]);
  });
});

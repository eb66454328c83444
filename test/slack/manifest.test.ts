import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { botScopes, buildSlackManifest } from '../../adapters/slack/app-manifest.ts';
import { allCommands } from '../../commands/all-commands.ts';

interface Manifest {
  features: { slash_commands: Array<{ command: string; description: string; usage_hint?: string }> };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { bot_events: string[] };
    interactivity: { is_enabled: boolean };
    socket_mode_enabled: boolean;
  };
}

const manifestPath = resolve(import.meta.dirname, '../../slack/manifest.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;

describe('slack/manifest.json', () => {
  it('is what the code generates (node slack/print-manifest.ts > slack/manifest.json)', () => {
    expect(manifest).toEqual(buildSlackManifest());
  });

  it('declares every command of commands/ with its description, and no other', () => {
    expect(
      manifest.features.slash_commands.map(({ command, description }) => ({ command, description })),
    ).toEqual(
      allCommands.map((command) => ({ command: `/${command.name}`, description: command.description })),
    );
  });

  it('asks for the scopes and events the adapter uses, with interactivity over Socket Mode', () => {
    expect(manifest.oauth_config.scopes.bot).toEqual(Object.keys(botScopes).sort());
    for (const scope of [
      'app_mentions:read',
      'chat:write',
      'commands',
      'files:read',
      'files:write',
      'users:read',
    ]) {
      expect(manifest.oauth_config.scopes.bot).toContain(scope);
    }
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(['app_mention', 'message.channels', 'message.groups', 'message.im']),
    );
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
  });

  it('puts the configured prefix before every command', () => {
    const prefixed = buildSlackManifest({ commandPrefix: 'parley-' }) as unknown as Manifest;
    expect(prefixed.features.slash_commands.map((command) => command.command)).toEqual(
      allCommands.map((command) => `/parley-${command.name}`),
    );
  });
});

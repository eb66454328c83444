import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { botScopes, buildSlackManifest } from '../../adapters/slack/app-manifest.ts';
import { allCommands } from '../../commands/all-commands.ts';

interface Manifest {
  features: {
    slash_commands: Array<{ command: string; description: string; usage_hint?: string; url?: string }>;
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { bot_events: string[]; request_url?: string };
    interactivity: { is_enabled: boolean; request_url?: string };
    socket_mode_enabled: boolean;
  };
}

const scriptPath = resolve(import.meta.dirname, '../../slack/print-manifest.ts');

/** Runs `npm run slack-manifest -- …` the way npm does: the script under this Node. */
function printManifest(args: string[]) {
  return spawnSync(process.execPath, [scriptPath, ...args], { encoding: 'utf8' });
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

  it('prints slack/manifest.json with no arguments', () => {
    expect(JSON.parse(execFileSync(process.execPath, [scriptPath], { encoding: 'utf8' }))).toEqual(manifest);
  });
});

describe('npm run slack-manifest -- --http <url>', () => {
  it('points events, interactivity and every command at the URL, without Socket Mode', () => {
    const url = 'https://bot.example.com/slack/events';
    const printed = printManifest(['--http', url, '--prefix', 'parley-']);
    const http = JSON.parse(printed.stdout) as Manifest;

    expect(printed.status).toBe(0);
    expect(http.settings.socket_mode_enabled).toBe(false);
    expect(http.settings.event_subscriptions.request_url).toBe(url);
    expect(http.settings.interactivity).toEqual({ is_enabled: true, request_url: url });
    expect(http.features.slash_commands.map((command) => [command.command, command.url])).toEqual(
      allCommands.map((command) => [`/parley-${command.name}`, url]),
    );
    // Everything else is the manifest made from commands/, as in slack/manifest.json.
    expect(http.oauth_config).toEqual(manifest.oauth_config);
    expect(http.settings.event_subscriptions.bot_events).toEqual(
      manifest.settings.event_subscriptions.bot_events,
    );
    expect(buildSlackManifest({ commandPrefix: 'parley-', requestUrl: url })).toEqual(http);
  });

  it('refuses a URL Slack would not call', () => {
    for (const url of ['http://bot.example.com/slack/events', 'not a url']) {
      const printed = printManifest(['--http', url]);
      expect(printed.status).toBe(1);
      expect(printed.stdout).toBe('');
      expect(printed.stderr).toMatch(/^--http must be/);
    }
    const plainRedirect = printManifest(['--redirect', 'http://bot.example.com/slack/oauth_redirect']);
    expect(plainRedirect.status).toBe(1);
    expect(plainRedirect.stderr).toMatch(/^--redirect must be an https:\/\/ URL/);
  });
});

describe('npm run slack-manifest -- --redirect <url> --token-rotation --org-deploy', () => {
  it('lists the OAuth redirect URL and turns on token rotation and org-wide installs', () => {
    const printed = printManifest([
      '--http',
      'https://bot.example.com/slack/events',
      '--redirect',
      'https://bot.example.com/slack/oauth_redirect',
      '--token-rotation',
      '--org-deploy',
    ]);
    expect(printed.status).toBe(0);
    const distributed = JSON.parse(printed.stdout) as Manifest & {
      oauth_config: { redirect_urls?: string[] };
      settings: { token_rotation_enabled: boolean; org_deploy_enabled: boolean };
    };
    expect(distributed.oauth_config.redirect_urls).toEqual(['https://bot.example.com/slack/oauth_redirect']);
    expect(distributed.settings.token_rotation_enabled).toBe(true);
    expect(distributed.settings.org_deploy_enabled).toBe(true);
    expect(distributed.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(['app_uninstalled', 'tokens_revoked']),
    );
    expect(manifest.settings.event_subscriptions.bot_events).not.toContain('app_uninstalled');
    expect(distributed.settings.event_subscriptions.request_url).toBe('https://bot.example.com/slack/events');
    // Without the flags: one workspace, as slack/manifest.json.
    expect(manifest).not.toHaveProperty('oauth_config.redirect_urls');
    expect(buildSlackManifest().settings?.token_rotation_enabled).toBe(false);
  });
});

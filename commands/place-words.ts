import type { OverrideScope } from '../src/administration/admin-settings.ts';

/**
 * What a person on each platform calls the places a /config override applies to: a Discord server,
 * a Slack workspace, or the terminal (one place, one person). Unknown platforms get Discord's words.
 */
export function placeWords(platform: string): Readonly<Record<OverrideScope, string>> {
  switch (platform) {
    case 'console':
      return { server: 'this terminal', channel: 'this terminal chat' };
    case 'slack':
      return { server: 'this workspace', channel: 'this channel' };
    default:
      return { server: 'this server', channel: 'this channel' };
  }
}

import { consolePlatform } from '../adapters/console/console-platform.ts';
import { discordPlatform } from '../adapters/discord/discord-platform.ts';
import { slackPlatform } from '../adapters/slack/slack-platform.ts';
import type { PlatformAdapter } from '../commands/platform-adapter.ts';
import { type LoadConfigOptions, type LoadedConfig, loadConfig } from '../src/config.ts';

/**
 * Every platform parley can run on: the only list of them. A new platform is an adapter folder and
 * one line here; nothing in src/ or commands/ changes.
 */
export const platformAdapters: ReadonlyArray<PlatformAdapter<unknown>> = [discordPlatform, slackPlatform];

/** The terminal chat, run when none of the platforms is configured. */
export const terminalAdapter = consolePlatform;

/** The variables of every platform (and of the terminal), by name, for loadConfig and the docs. */
export const platformFragments = {
  discord: discordPlatform.configSchema,
  slack: slackPlatform.configSchema,
  console: consolePlatform.configSchema,
} as const;

/** parley's whole configuration: the core's variables and every platform's. */
export type ParleyConfig = LoadedConfig<typeof platformFragments>;

/** loadConfig with every platform's variables. */
export function loadParleyConfig(
  options: Partial<Omit<LoadConfigOptions<never>, 'platforms'>> = {},
): ParleyConfig {
  return loadConfig({ ...options, platforms: platformFragments });
}

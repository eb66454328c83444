import { describe, expect, it } from 'vitest';
import { platformAdapters, platformFragments, terminalAdapter } from '../../bin/platform-adapters.ts';
import { allEnvironmentSchemas } from '../../scripts/config-reference.ts';

describe('the platforms’ environment fragments', () => {
  it('reads each platform’s variables under its own name', () => {
    const fragments: Readonly<Record<string, unknown>> = platformFragments;
    for (const adapter of [...platformAdapters, terminalAdapter]) {
      expect(fragments[adapter.name], adapter.name).toBe(adapter.configSchema);
    }
    expect(Object.keys(platformFragments).sort()).toEqual(
      [...platformAdapters, terminalAdapter].map((adapter) => adapter.name).sort(),
    );
  });

  it('declares every variable once, in the core or in exactly one fragment', () => {
    const names = allEnvironmentSchemas.flatMap((schema) => Object.keys(schema.shape));
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    expect(platformFragments.discord.schema.shape).toHaveProperty('DISCORD_TOKEN');
    expect(platformFragments.slack.schema.shape).toHaveProperty('SLACK_BOT_TOKEN');
    expect(allEnvironmentSchemas[0]?.shape).not.toHaveProperty('DISCORD_TOKEN');
  });

  it('Slack in HTTP mode listens on 127.0.0.1 unless HOST says otherwise (issue 23)', () => {
    const settingsWith = (environment: Record<string, string>) => {
      const reading = platformFragments.slack.read({
        SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
        SLACK_SIGNING_SECRET: 'signing-secret',
        ...environment,
      });
      return 'settings' in reading ? reading.settings : reading.problems;
    };
    expect(settingsWith({})).toMatchObject({ transport: { mode: 'http' }, host: '127.0.0.1' });
    expect(settingsWith({ HOST: '0.0.0.0' })).toMatchObject({ host: '0.0.0.0' });
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadParleyConfig } from '../../bin/platform-adapters.ts';
import {
  renderConfigurationReference,
  renderEnvExample,
  settingRows,
} from '../../scripts/config-reference.ts';
import { projectRoot } from '../../src/config.ts';

const read = (path: string) => readFileSync(join(projectRoot, path), 'utf8');
const regenerate = 'it is out of date: run `npm run config-docs` and commit the result';

describe('the configuration reference, generated from the schema', () => {
  it('docs/configuration.md is what the schema says', () => {
    expect(read('docs/configuration.md'), `docs/configuration.md ${regenerate}`).toBe(
      renderConfigurationReference(),
    );
  });

  it('.env.example is what the schema says', () => {
    expect(read('.env.example'), `.env.example ${regenerate}`).toBe(renderEnvExample());
  });

  it('documents every variable with a type, a default and a meaning, and .env.example names exactly those', () => {
    const rows = settingRows();
    for (const row of rows) {
      expect(row.description.length, row.variable).toBeGreaterThan(10);
      expect(row.typeText, row.variable).not.toBe('');
      expect(row.defaultText, row.variable).not.toBe('');
      // A default read into a record or an object must be written out, not as JavaScript prints it.
      expect(row.defaultText, row.variable).not.toContain('[object');
      expect(read('docs/configuration.md')).toContain(`| \`${row.variable}\` |`);
    }
    const example = parseEnv(read('.env.example'));
    expect(Object.keys(example).sort()).toEqual(rows.map((row) => row.variable).sort());
    // Only what must be set has a value; everything else is empty, so its default applies.
    const filledIn = Object.entries(example).filter(([, value]) => value !== '');
    expect(filledIn.map(([name]) => name)).toEqual(['GATEWAY_BASE_URL']);
  });

  it('.env.example copied as it is gives the defaults, once the two gateway values are set', () => {
    const fromExample = loadParleyConfig({
      environment: { GATEWAY_API_KEY: 'key-from-the-console' },
      envFilePath: join(projectRoot, '.env.example'),
    });
    const fromNothing = loadParleyConfig({
      environment: {
        GATEWAY_BASE_URL: 'https://gateway.example/api/v1',
        GATEWAY_API_KEY: 'key-from-the-console',
      },
      envFilePath: join(projectRoot, 'no-such-env-file'),
    });
    expect(fromExample).toEqual(fromNothing);
  });
});

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadParleyConfig } from '../../bin/platform-adapters.ts';
import { ConfigError } from '../../src/config.ts';
import { quoteSettingValue } from '../../src/environment/quote-setting-value.ts';

const missingEnvFile = join(tmpdir(), 'parley-no-such-env-file');
const key = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e';

function messageOf(environment: Record<string, string>): string {
  try {
    loadParleyConfig({ environment, envFilePath: missingEnvFile });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('a configuration message never quotes a secret', () => {
  it("leaves a URL's userinfo out, and still names the variable and what is wrong", () => {
    const message = messageOf({ GATEWAY_BASE_URL: `ftp://user:${key}@gateway`, GATEWAY_API_KEY: 'k' });
    expect(message).toContain('GATEWAY_BASE_URL');
    expect(message).toContain('must start with http:// or https://');
    expect(message).toContain('ftp://');
    expect(message).not.toContain(key);
    expect(message).not.toContain('user:');
    expect(message).not.toContain(key.slice(8, 20));
  });

  it('leaves out a value that looks like a key, wherever it was put by mistake', () => {
    const message = messageOf({
      GATEWAY_BASE_URL: 'http://127.0.0.1:9/api/v1',
      GATEWAY_API_KEY: 'k',
      RATE_USER_PER_MINUTE: key,
      BUDGET_USER_DAILY: 'xoxb-1234567890-abcdefghijkl',
      BUDGET_TIMEZONE: 'MTAxNzQ2ODk1NzU5MjM0NTY3OA.GhJkLm.abcdefghijklmnopqrstuvwxyz012345',
    });
    expect(message).toContain('RATE_USER_PER_MINUTE');
    expect(message).toContain('BUDGET_USER_DAILY');
    expect(message).not.toContain(key);
    expect(message).not.toContain('xoxb-1234567890');
    expect(message).not.toContain('GhJkLm');
  });

  it('quotes ordinary wrong values as they were written, so the operator can find them', () => {
    expect(quoteSettingValue('not a url')).toBe('"not a url"');
    expect(quoteSettingValue('Europe/Berlinn')).toBe('"Europe/Berlinn"');
    expect(quoteSettingValue('https://user:pw@host/api')).toBe('"https://…@host/api"');
  });
});

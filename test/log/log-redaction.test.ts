import { describe, expect, it } from 'vitest';
import { scrubSecrets } from '../../src/log.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

describe('logging never writes a secret', () => {
  const apiKey = 'gw-live-0123456789abcdef';

  it('redacts the key by value wherever it appears, including inside errors and their causes', () => {
    const { logger, output } = createCapturedLogger([apiKey]);
    const cause = new Error(`upstream said: invalid key ${apiKey}`);
    logger.error(
      { err: new Error(`request with ${apiKey} failed`, { cause }), url: `https://x/?key=${apiKey}` },
      `oops ${apiKey}`,
    );
    expect(output()).not.toContain(apiKey);
    expect(output()).toContain('[redacted]');
  });

  it('redacts Authorization headers, tokens and credential-shaped strings it was not told about', () => {
    const { logger, output } = createCapturedLogger([]);
    logger.info(
      {
        request: { headers: { authorization: 'Bearer abcdefghijklmnop' } },
        token: 'plain-token-value',
        note: 'slack xoxb-1234567890-abcdefghij and Bot MTIzNDU2Nzg5.discord.token',
        store: 'redis://user:hunter2@127.0.0.1:6379',
        other: 'redis://:swordfish@10.0.0.1:6379',
      },
      'call',
    );
    const text = output();
    for (const secret of [
      'abcdefghijklmnop',
      'plain-token-value',
      'xoxb-1234567890',
      'MTIzNDU2Nzg5',
      'hunter2',
      'swordfish',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('127.0.0.1:6379');
  });

  it('leaves ordinary text alone', () => {
    expect(scrubSecrets('a Bearer of good news', ['key-1234'])).toBe('a Bearer of good news');
  });
});

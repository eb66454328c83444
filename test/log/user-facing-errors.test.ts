import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { GatewayError } from '../../src/gateway/gateway-error.ts';
import { ImageLoadError } from '../../src/images/image-load-error.ts';
import { SearchUnavailableError } from '../../src/search/search-provider.ts';
import { StoreUrlError } from '../../src/state/store-url.ts';
import { StoreTimeoutError, storeUnavailableMessage } from '../../src/state/time-bound-store.ts';
import { genericUserMessage, UserFacingError, userMessageOf } from '../../src/user-facing-error.ts';

describe('the family of errors written for a person', () => {
  it('has every error a person may read under UserFacingError, each with its own words', () => {
    const members = [
      new GatewayError({ kind: 'rate-limited', message: 'gateway 429' }),
      new ImageLoadError({
        message: 'too big',
        userMessage: 'photo.png is over the limit, so I left it out.',
      }),
      new SearchUnavailableError({ message: 'searxng 502', userMessage: 'Web search is not answering.' }),
      new StoreTimeoutError({ operation: 'get', timeoutMs: 5_000 }),
      new StoreUrlError({ storeUrl: 'redis://bot:hunter2@', problem: 'it is not a valid URL' }),
      new ConfigError(['GATEWAY_API_KEY: is required']),
    ];
    for (const error of members) {
      expect(error, error.name).toBeInstanceOf(UserFacingError);
      expect(UserFacingError.isInstance(error), error.name).toBe(true);
      expect(userMessageOf(error), error.name).not.toBe(genericUserMessage);
      expect(userMessageOf(error), error.name).not.toContain('hunter2');
    }
    expect(userMessageOf(members[3])).toBe(storeUnavailableMessage);
  });

  it('shows the one generic line for anything else, and never its message', () => {
    expect(userMessageOf(new Error('ECONNRESET at 10.0.0.3 with key sk-secret'))).toBe(genericUserMessage);
    expect(userMessageOf('a string')).toBe(genericUserMessage);
    expect(userMessageOf(undefined)).toBe(genericUserMessage);
    expect(UserFacingError.isInstance({ userMessage: 'looks the part' })).toBe(false);
  });

  it('is recognised across two copies of the module, where instanceof is not', async () => {
    // A query makes the module loader treat the same file as another module: a second copy of it.
    const secondCopy = '../../src/user-facing-error.ts?second-copy';
    const copy: typeof import('../../src/user-facing-error.ts') = await import(/* @vite-ignore */ secondCopy);
    const fromCopy = new copy.UserFacingError({
      message: 'from the copy',
      userMessage: 'Words from the copy.',
    });
    expect(fromCopy instanceof UserFacingError).toBe(false);
    expect(UserFacingError.isInstance(fromCopy)).toBe(true);
    expect(userMessageOf(fromCopy)).toBe('Words from the copy.');
  });
});

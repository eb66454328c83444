import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { classifyDiscordFailure } from '../../adapters/discord/classify-failure.ts';

const request = { body: undefined, files: undefined };

describe('classifyDiscordFailure', () => {
  it('gives up on a refusal that will not change: an unknown message, a missing permission', () => {
    const unknownMessage = new DiscordAPIError(
      { code: 10008, message: 'Unknown Message' },
      10008,
      404,
      'PATCH',
      '/channels/1/messages/2',
      request,
    );
    const missingPermissions = new DiscordAPIError(
      { code: 50013, message: 'Missing Permissions' },
      50013,
      403,
      'PATCH',
      '/channels/1/messages/2',
      request,
    );
    expect(classifyDiscordFailure(unknownMessage)).toEqual({ isRetryable: false });
    expect(classifyDiscordFailure(missingPermissions)).toEqual({ isRetryable: false });
  });

  it('tries again after a server error, a dropped connection or a rate limit, as long as Discord asks', () => {
    expect(classifyDiscordFailure(new HTTPError(503, 'Service Unavailable', 'PATCH', '/x', request))).toEqual(
      {
        isRetryable: true,
      },
    );
    expect(classifyDiscordFailure(new Error('read ECONNRESET'))).toEqual({ isRetryable: true });
    const rateLimited = new RateLimitError({
      timeToReset: 2_000,
      limit: 5,
      method: 'PATCH',
      hash: 'h',
      url: '/x',
      route: '/channels/:id/messages/:id',
      majorParameter: '1',
      global: false,
      retryAfter: 2_000,
      sublimitTimeout: 0,
      scope: 'user',
    });
    expect(classifyDiscordFailure(rateLimited)).toEqual({ isRetryable: true, retryAfterMs: 2_000 });
  });
});

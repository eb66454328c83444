import { describe, expect, it } from 'vitest';
import { DiscordRequestWithheldError } from '../../adapters/discord/invalid-request-guard.ts';
import { reportCallOutcomes, routeClassOf } from '../../adapters/discord/report-call-outcomes.ts';
import { platformDegradation } from '../../src/operations/health.ts';

/** What /readyz learns from Discord's REST calls (issue 22, item 3). */
describe('reportCallOutcomes', () => {
  it('names a Discord call by its route with every id and token generalised', () => {
    expect(routeClassOf('POST', 'https://discord.com/api/v10/channels/1234567890/messages')).toBe(
      'POST /channels/:id/messages',
    );
    expect(
      routeClassOf('PATCH', 'https://discord.com/api/v10/webhooks/42/aW50ZXJhY3Rpb24tdG9rZW4/messages/987'),
    ).toBe('PATCH /webhooks/:id/:token/messages/:id');
  });

  it('counts a 5xx and a call with no answer as Discord failing; a withheld call says nothing', async () => {
    const url = 'https://discord.com/api/v10/channels/1234567890/messages/55555';
    let answer: () => Promise<{ status: number }> = async () => ({ status: 503 });
    const makeRequest = reportCallOutcomes((async () => answer()) as never);
    const call = () => makeRequest(url, { method: 'PATCH' } as never);
    await call();
    answer = async () => {
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    };
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    await expect(call()).rejects.toThrow('socket hang up');
    expect(platformDegradation('discord')).toMatch(
      /^platform degraded: PATCH \/channels\/:id\/messages\/:id failing \(no answer \(ECONNRESET\)\) for 3 s$/,
    );
    answer = async () => {
      throw new DiscordRequestWithheldError({
        route: 'PATCH /channels/1/messages/:id',
        why: 'it kept failing',
      });
    };
    await expect(call()).rejects.toThrow(DiscordRequestWithheldError);
    expect(platformDegradation('discord')).toContain('ECONNRESET');
    answer = async () => ({ status: 404 });
    await call();
    expect(platformDegradation('discord')).toBeUndefined();
  });
});

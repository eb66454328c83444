import { describe, expect, it } from 'vitest';
import {
  checkReadiness,
  platformDegradation,
  reportPlatformCall,
  reportPlatformConnection,
} from '../../src/operations/health.ts';

/**
 * /readyz during a platform outage (issue 22, item 3): connected to the platform, yet its API keeps
 * failing, so replies are not getting out. Each test uses a platform name of its own: the record is
 * one per process.
 */
describe('platform degradation', () => {
  it('says "platform degraded" once one kind of call has failed for 3 s, and is ready again at its first answer', () => {
    const platform = 'outage-test-a';
    const route = 'POST /channels/:id/messages';
    reportPlatformCall({ platform, route, failure: '502', nowMs: 1_000 });
    // Discord.js's own immediate retries of the same call are not an outage yet.
    reportPlatformCall({ platform, route, failure: '502', nowMs: 1_050 });
    expect(platformDegradation(platform, 1_100)).toBeUndefined();
    reportPlatformCall({ platform, route, failure: '502', nowMs: 4_000 });
    expect(platformDegradation(platform, 4_100)).toBe(
      'platform degraded: POST /channels/:id/messages failing (502) for 3 s',
    );
    reportPlatformCall({ platform, route, nowMs: 5_000 });
    expect(platformDegradation(platform, 5_100)).toBeUndefined();
  });

  it('a 4xx is an answer: the platform is up', () => {
    const platform = 'outage-test-b';
    const route = 'PATCH /channels/:id/messages/:id';
    reportPlatformCall({ platform, route, failure: '503', nowMs: 0 });
    reportPlatformCall({ platform, route, failure: '503', nowMs: 4_000 });
    expect(platformDegradation(platform, 4_000)).toContain('failing (503) for 4 s');
    reportPlatformCall({ platform, route, failure: undefined, nowMs: 4_500 });
    expect(platformDegradation(platform, 4_500)).toBeUndefined();
  });

  it('forgets a failing kind of call nobody made for a minute', () => {
    const platform = 'outage-test-c';
    const route = 'POST /channels/:id/messages';
    reportPlatformCall({ platform, route, failure: 'no answer (ECONNRESET)', nowMs: 0 });
    reportPlatformCall({ platform, route, failure: 'no answer (ECONNRESET)', nowMs: 5_000 });
    expect(platformDegradation(platform, 6_000)).toContain('no answer (ECONNRESET)');
    expect(platformDegradation(platform, 70_000)).toBeUndefined();
  });

  it('makes /readyz not ready, with the reason, while the platform is connected', async () => {
    const platform = 'outage-test-d';
    reportPlatformConnection({ platform, isConnected: true });
    const now = Date.now();
    reportPlatformCall({
      platform,
      route: 'POST /channels/:id/messages',
      failure: '502',
      nowMs: now - 10_000,
    });
    reportPlatformCall({ platform, route: 'POST /channels/:id/messages', failure: '502', nowMs: now });
    const readiness = await checkReadiness({ platforms: [platform], probeStore: async () => 'ok' });
    expect(readiness.isReady).toBe(false);
    expect(readiness.reasons).toEqual([
      `${platform}: platform degraded: POST /channels/:id/messages failing (502) for 10 s`,
    ]);
    expect(readiness.checks[platform]).toBe(
      'connected; platform degraded: POST /channels/:id/messages failing (502) for 10 s',
    );
  });
});

import { SpanStatusCode } from '@opentelemetry/api';
import { ATTR_HTTP_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions';
import { ATTR_URL_TEMPLATE } from '@opentelemetry/semantic-conventions/incubating';
import { DiscordAPIError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { createOutboundQueue } from '../../src/delivery/outbound-queue.ts';
import { createSlidingWindow } from '../../src/delivery/rate-limits.ts';
import {
  ATTR_PARLEY_OUTBOUND_PRIORITY,
  ATTR_PARLEY_OUTBOUND_WAIT_MS,
} from '../../src/tracing/span-attributes.ts';
import { useInMemoryTracing } from '../support/in-memory-tracing.ts';

/**
 * Issue 38: each call through the outbound queue is a span named by its route, with how long its
 * rate limits held it and, for a refused call, the HTTP status the platform answered (discord.js's
 * own error, as the Discord adapter meets it).
 */
const exporter = useInMemoryTracing();

const route = 'POST /channels/{channel.id}/messages';

describe('platform call spans', () => {
  it('carry the route, the priority, the rate-limit wait and a refusal’s status', async () => {
    const windowMs = 300;
    const channel = createSlidingWindow({ limit: 1, windowMs });
    const queue = createOutboundQueue<{ channelId: string }>({
      bucketsFor: (target) => [{ limit: channel, key: target.channelId }],
      routeOf: () => route,
    });
    const first = queue.schedule({
      priority: 'first-post',
      target: { channelId: 'c1' },
      run: async () => 'posted',
    });
    // The window holds one call: this one waits until the first leaves it, then Discord refuses it.
    const refused = queue.schedule({
      priority: 'edit',
      target: { channelId: 'c1' },
      run: async () => {
        throw new DiscordAPIError(
          { code: 50013, message: 'Missing Permissions' },
          50013,
          403,
          'POST',
          '/channels/c1/messages',
          {},
        );
      },
    });
    await expect(first).resolves.toBe('posted');
    await expect(refused).rejects.toBeInstanceOf(DiscordAPIError);
    const [posted, denied] = exporter.getFinishedSpans();
    expect(posted?.name).toBe(route);
    expect(posted?.attributes).toMatchObject({
      [ATTR_URL_TEMPLATE]: route,
      [ATTR_PARLEY_OUTBOUND_PRIORITY]: 'first-post',
    });
    expect(posted?.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(denied?.attributes[ATTR_PARLEY_OUTBOUND_PRIORITY]).toBe('edit');
    // The second call waited for the first to leave the window; the first had room at once.
    expect(Number(denied?.attributes[ATTR_PARLEY_OUTBOUND_WAIT_MS])).toBeGreaterThan(
      Number(posted?.attributes[ATTR_PARLEY_OUTBOUND_WAIT_MS]),
    );
    expect(denied?.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(403);
    expect(denied?.status.code).toBe(SpanStatusCode.ERROR);
  });
});

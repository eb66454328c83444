import { DefaultRestOptions, type RESTOptions } from '@discordjs/rest';
import { failOpen } from '../../src/delivery/fail-open-limit.ts';
import type { Acquisition, RateLimit } from '../../src/delivery/rate-limits.ts';
import type { SharedRateLimit } from '../../src/delivery/redis-sliding-window.ts';
import type { Logger } from '../../src/log.ts';
import { countedRequests } from './counted-requests.ts';

/**
 * Discord allows 50 requests a second for the whole bot token, whatever the number of processes
 * (https://discord.com/developers/docs/topics/rate-limits#global-rate-limit). Each process orders
 * its own calls (posts first, then final edits, then edits); this gate, under discord.js's REST,
 * makes every process draw each call from one window in Redis, so together they never send more.
 * Interaction endpoints (the callback and the webhook with the interaction token) are "not bound to
 * the bot's Global Rate Limit" (same page), so they pass without a slot, as do the calls the outbound
 * queue sends, which took their slot of the same window in their turn (`countedRequests`).
 */
export function createSharedRestGate({
  window,
  botKey,
  logger,
  baseRequest = DefaultRestOptions.makeRequest,
}: {
  window: SharedRateLimit;
  /** The key of this bot's budget (its application id): processes of one bot share it. */
  botKey: string;
  logger: Logger;
  baseRequest?: RESTOptions['makeRequest'];
}): RESTOptions['makeRequest'] {
  const limit = failOpen({ limit: window, logger, what: 'the shared Discord request budget' });
  return async (url, init) => {
    if (isInteractionEndpoint(url) || countedRequests.getStore() === true) return baseRequest(url, init);
    const slot = await takeSlot(limit, botKey);
    try {
      return await baseRequest(url, init);
    } finally {
      // Sent, even when it failed: Discord may have counted it.
      await slot.release({ endedAtMs: Date.now(), wasSent: true });
    }
  };
}

/** `/interactions/{id}/{token}/callback` and `/webhooks/{application.id}/{interaction.token}…`. */
function isInteractionEndpoint(url: string): boolean {
  const path = new URL(url).pathname;
  return /\/interactions\/\d+\/[^/]+\/callback$/.test(path) || /\/webhooks\/\d+\/[^/]+/.test(path);
}

/**
 * Waits for a slot. A Redis that fails lets the call through (`failOpen`, which also logs a slot it
 * could not give back; the process's own queue still holds it to the budget of one process): a
 * broken shared budget must not silence the bot.
 */
async function takeSlot(limit: RateLimit, key: string): Promise<Extract<Acquisition, { isGranted: true }>> {
  for (;;) {
    const answer = await limit.tryAcquire(key, Date.now());
    if (answer.isGranted) return answer;
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, answer.retryAtMs - Date.now())));
  }
}

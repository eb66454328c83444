import { DefaultRestOptions, type RESTOptions } from '@discordjs/rest';
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
  return async (url, init) => {
    if (isInteractionEndpoint(url) || countedRequests.getStore() === true) return baseRequest(url, init);
    const release = await takeSlot({ window, key: botKey, logger });
    let wasSent = false;
    try {
      wasSent = true;
      return await baseRequest(url, init);
    } finally {
      await release(wasSent);
    }
  };
}

/** `/interactions/{id}/{token}/callback` and `/webhooks/{application.id}/{interaction.token}…`. */
function isInteractionEndpoint(url: string): boolean {
  const path = new URL(url).pathname;
  return /\/interactions\/\d+\/[^/]+\/callback$/.test(path) || /\/webhooks\/\d+\/[^/]+/.test(path);
}

/**
 * Waits for a slot. A Redis that fails lets the call through (the process's own queue still holds it
 * to the budget of one process): a broken shared budget must not silence the bot.
 */
async function takeSlot({
  window,
  key,
  logger,
}: {
  window: SharedRateLimit;
  key: string;
  logger: Logger;
}): Promise<(wasSent: boolean) => Promise<void>> {
  for (;;) {
    let answer: Awaited<ReturnType<SharedRateLimit['tryAcquire']>>;
    try {
      answer = await window.tryAcquire(key, Date.now());
    } catch (error) {
      logger.warn({ err: error }, 'the shared Discord request budget is unavailable; sending without it');
      return async () => {};
    }
    if (answer.isGranted) {
      return (wasSent) =>
        answer.isGranted
          ? answer.release({ endedAtMs: Date.now(), wasSent }).catch((error: unknown) => {
              logger.warn({ err: error }, 'could not give back a slot of the shared Discord budget');
            })
          : Promise.resolve();
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, answer.retryAtMs - Date.now())));
  }
}

import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Marks the REST requests a call of the outbound queue makes, whose slot of the token's shared budget
 * the queue already took (see `createDiscordOutbound`): the gate under discord.js's REST
 * (`shared-rest-budget.ts`) lets them through instead of counting them twice. The mark follows the
 * call through discord.js's own queues, since each awaits inside the call's async context.
 */
export const countedRequests = new AsyncLocalStorage<true>();

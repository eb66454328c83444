import type { RESTOptions } from '@discordjs/rest';
import { reportPlatformCall } from '../../src/operations/health.ts';
import { noAnswerFailureOf } from '../../src/operations/no-answer.ts';
import { DiscordRequestWithheldError, routeOf } from './invalid-request-guard.ts';

/**
 * Tells /readyz how each REST call of the adapter went (`reportPlatformCall`): a 5xx or no answer at
 * all is Discord failing, any other answer (a 4xx included) is Discord up. A call the invalid request
 * guard withheld never reached Discord and says nothing about it. Routes are generalised (every id
 * and token), so one failing channel and a failing API read the same.
 */
export function reportCallOutcomes(makeRequest: RESTOptions['makeRequest']): RESTOptions['makeRequest'] {
  return async (url, init) => {
    const route = routeClassOf(init.method ?? 'GET', url);
    let response: Awaited<ReturnType<RESTOptions['makeRequest']>>;
    try {
      response = await makeRequest(url, init);
    } catch (error) {
      if (!(error instanceof DiscordRequestWithheldError)) {
        reportPlatformCall({ platform: 'discord', route, failure: noAnswerFailureOf(error) });
      }
      throw error;
    }
    reportPlatformCall({
      platform: 'discord',
      route,
      failure: response.status >= 500 ? String(response.status) : undefined,
    });
    return response;
  };
}

/** E.g. `PATCH /channels/:id/messages/:id`, `POST /webhooks/:id/:token`: never an id or a token. */
export function routeClassOf(method: string, url: string): string {
  return routeOf(method, url)
    .replace(/\/\d+/g, '/:id')
    .replace(/\/:token-[0-9a-f]+/g, '/:token');
}

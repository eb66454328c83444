import { reportPlatformCall } from '../../src/operations/health.ts';
import { noAnswerFailureOf } from '../../src/operations/no-answer.ts';

/**
 * The kind of a Slack call by its URL: the Web API method (`chat.postMessage`), or `file-upload` for
 * the upload URLs `files.getUploadURLExternal` hands out (they hold a token, so they are one class).
 */
export function slackRouteClassOf(url: URL): string {
  return /\/api\/([\w.]+)$/.exec(url.pathname)?.[1] ?? 'file-upload';
}

/**
 * Tells /readyz how each of the adapter's calls to Slack went (`reportPlatformCall`), as the Discord
 * adapter does for its REST calls: a 5xx or no answer at all is Slack failing; any other answer is
 * Slack up, `ok: false` included (Slack answers its own errors with HTTP 200, docs.slack.dev/apis/web-api,
 * "Evaluating responses"), and so is a 429 (Slack is answering, only more slowly than parley would like).
 * A call parley cancelled itself says nothing about Slack; one that ran out of the WebClient's time
 * (`AbortSignal.timeout`) is Slack not answering.
 */
export function reportSlackCallOutcomes(innerFetch: typeof fetch): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const route = slackRouteClassOf(new URL(url));
    let response: Response;
    try {
      response = await innerFetch(input, init);
    } catch (error) {
      if (!wasCancelledByParley(init?.signal)) {
        reportPlatformCall({ platform: 'slack', route, failure: noAnswerFailureOf(error) });
      }
      throw error;
    }
    reportPlatformCall({
      platform: 'slack',
      route,
      failure: response.status >= 500 ? String(response.status) : undefined,
    });
    return response;
  }) as typeof fetch;
}

function wasCancelledByParley(signal: AbortSignal | null | undefined): boolean {
  if (signal?.aborted !== true) return false;
  const reason: unknown = signal.reason;
  return !(reason instanceof Error && reason.name === 'TimeoutError');
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeSlackState } from './fake-slack-state.ts';
import { readBodyBytes, sendBody, sendJson } from './http-io.ts';
import { mentionsInArguments } from './mention-scanner.ts';
import { truncateText } from './message-limits.ts';
import { maxResponseUrlUses, type ResponseUrl } from './response-urls.ts';
import { nextMessageTs } from './slack-ids.ts';

/**
 * POST to a `response_url`. Records it, then does what Slack does: `response_type: 'in_channel'`
 * posts a message everyone sees, `replace_original`/`delete_original` change the clicked message,
 * anything else is an ephemeral message for the person who ran the command.
 */
export async function receiveResponseUrlPost(
  state: FakeSlackState,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<void> {
  const responseUrl = state.responseUrls.byPath(path);
  const bodyText = (await readBodyBytes(request)).toString('utf8');
  if (responseUrl === undefined) {
    sendBody(response, 404, 'text/plain; charset=utf-8', 'invalid_token');
    return;
  }
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(bodyText);
    body = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    record(state, responseUrl, { raw: bodyText }, 400);
    sendBody(response, 400, 'text/plain; charset=utf-8', 'invalid_payload');
    return;
  }
  if (state.responseUrls.isExpired(responseUrl)) {
    record(state, responseUrl, body, 404);
    sendBody(response, 404, 'text/plain; charset=utf-8', 'expired_url');
    return;
  }
  responseUrl.useCount += 1;
  if (responseUrl.useCount > maxResponseUrlUses) {
    record(state, responseUrl, body, 404);
    sendBody(response, 404, 'text/plain; charset=utf-8', 'used_url');
    return;
  }
  apply(state, responseUrl, body);
  for (const mention of mentionsInArguments(body)) {
    state.mentions.push({ ...mention, source: 'response_url', channel: responseUrl.target.channel });
  }
  record(state, responseUrl, body, 200);
  sendJson(response, 200, { ok: true });
}

function record(
  state: FakeSlackState,
  responseUrl: ResponseUrl,
  body: Record<string, unknown>,
  status: number,
) {
  state.responseUrls.posts.push({
    url: responseUrl.url,
    target: responseUrl.target,
    body,
    status,
    atMs: Date.now(),
  });
  state.notifyChange();
}

function apply(state: FakeSlackState, responseUrl: ResponseUrl, body: Record<string, unknown>): void {
  const { target } = responseUrl;
  const text = typeof body.text === 'string' ? truncateText(body.text) : '';
  const blocks = Array.isArray(body.blocks) ? body.blocks : undefined;
  const original =
    target.messageTs === undefined ? undefined : state.messages.find(target.channel, target.messageTs);
  if (body.delete_original === true && original !== undefined) {
    state.messages.remove(original.channel, original.ts);
    return;
  }
  if (body.replace_original === true && original !== undefined) {
    original.text = text;
    original.blocks = blocks;
    original.editCount += 1;
    original.updatedAtMs = Date.now();
    return;
  }
  const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : target.threadTs;
  if (body.response_type === 'in_channel') {
    state.messages.add({
      channel: target.channel,
      ts: nextMessageTs(),
      threadTs,
      user: state.workspace.botUserId,
      botId: state.workspace.botId,
      text,
      blocks,
    });
    return;
  }
  state.ephemeralMessages.push({
    channel: target.channel,
    user: target.user,
    text,
    blocks,
    threadTs,
    source: 'response_url',
    atMs: Date.now(),
  });
}

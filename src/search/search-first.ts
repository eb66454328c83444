import { z } from 'zod';
import type { ChatMessage, ChatRequest, ChatStreamEvent } from '../gateway/chat-types.ts';
import type { Gateway } from '../gateway/gateway-client.ts';
import type { Logger } from '../log.ts';
import type { ToolRunContext } from '../tools/tool.ts';
import type { SearchProvider } from './search-provider.ts';
import { searchAndNumber } from './search-tools.ts';

/**
 * Search first, then answer: for models without tools (or whose gateway refuses them), and for
 * `/search`. A small structured request decides whether and what to search (unless the query is
 * given), the results go into the person's message, and the answer streams. Yields the gateway's
 * events except the last `finish`, which it returns with the answer's text, so the caller can add
 * the sources first.
 */
export async function* searchFirst({
  gateway,
  provider,
  chat,
  query,
  context,
  logger,
}: {
  gateway: Gateway;
  provider: SearchProvider;
  /** Its hold covers the decision and the answer. */
  chat: ChatRequest;
  /** `/search`: the query; undefined: the model decides. */
  query: string | undefined;
  context: ToolRunContext;
  logger: Logger;
}): AsyncGenerator<
  ChatStreamEvent,
  { text: string; finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined }
> {
  const wanted = query ?? (await decideSearch({ gateway, chat, logger }));
  let messages = chat.messages;
  if (wanted) {
    // Parley's own step, not a tool the model called: a task card or the status line as it runs,
    // ending with the pages it found (or an error when the search service failed).
    const step = { id: searchStepId, kind: 'work', title: `🔎 searching: ${wanted.slice(0, 80)}` } as const;
    yield { type: 'tool-step', step: { ...step, status: 'running' } };
    const known = context.sources.all.length;
    const noticesBefore = context.notices.length;
    const results = await searchAndNumber({ query: wanted, provider, ...context });
    const found = context.sources.all.slice(known).map(({ title, url }) => ({ title, url }));
    yield {
      type: 'tool-step',
      step:
        context.notices.length > noticesBefore
          ? { ...step, status: 'error', detail: 'web search is unavailable' }
          : { ...step, status: 'complete', ...(found.length > 0 ? { sources: found } : {}) },
    };
    messages = withResults(messages, { query: wanted, results });
  }
  let text = '';
  let finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined;
  for await (const event of gateway.chatStream({ ...chat, messages })) {
    if (event.type === 'finish') finish = event;
    else if (event.type !== 'tool-calls') {
      if (event.type === 'text-delta') text += event.text;
      yield event;
    }
  }
  return { text, finish };
}

/** The search-first step's id: one search a reply. */
const searchStepId = 'search-first';

const decisionSchema = z.object({
  shouldSearch: z.boolean().describe('Whether a web search would help answer the message'),
  query: z.string().describe('The search query, or an empty string when no search is needed'),
});

/** The small structured request that decides whether and what to search; failures mean "no". */
async function decideSearch({
  gateway,
  chat,
  logger,
}: {
  gateway: Gateway;
  chat: ChatRequest;
  logger: Logger;
}): Promise<string | undefined> {
  const message = lastUserText(chat.messages);
  try {
    const decision = await gateway.generateStructured({
      model: chat.model,
      schema: decisionSchema,
      schemaName: 'search_decision',
      maxTokens: 100,
      hold: chat.hold,
      ...(chat.signal ? { signal: chat.signal } : {}),
      messages: [
        {
          role: 'user',
          content: `Today is ${new Date().toISOString().slice(0, 10)}. Decide whether answering this chat message needs a web search (current events, recent facts, prices, schedules, things you may not know). Message:\n\n${message}`,
        },
      ],
    });
    return decision.value.shouldSearch && decision.value.query.trim() !== ''
      ? decision.value.query.trim()
      : undefined;
  } catch (error) {
    logger.warn({ err: error, model: chat.model }, 'search decision failed; answering without search');
    return undefined;
  }
}

// Search results go after the person's message, marked as results, in the same user turn.
function withResults(
  messages: readonly ChatMessage[],
  { query, results }: { query: string; results: string },
): ChatMessage[] {
  const last = messages.at(-1);
  if (!last) return [...messages];
  const block = `\n\n<search_results query="${query.replaceAll('"', "'")}">\n${results}\n</search_results>`;
  const content =
    typeof last.content === 'string'
      ? last.content + block
      : [...last.content, { type: 'text' as const, text: block.trim() }];
  return [...messages.slice(0, -1), { ...last, content }];
}

/** The text of the person's message, without its author's name: `/search`'s query. */
export function lastUserText(messages: readonly ChatMessage[]): string {
  const last = messages.findLast((message) => message.role === 'user');
  if (!last) return '';
  const text =
    typeof last.content === 'string'
      ? last.content
      : last.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  // The message starts with its author's name ("Ada: …"); the query is what follows.
  return (
    text
      .replace(/^[^:\n]{1,80}:\s*/, '')
      .split('\n\n<document')[0]
      ?.slice(0, 2_000) ?? ''
  );
}

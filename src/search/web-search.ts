import { z } from 'zod';
import type { ChatMessage, ChatRequest, ChatStreamEvent, ToolCall } from '../gateway/chat-types.ts';
import type { Gateway } from '../gateway/gateway-client.ts';
import { GatewayError } from '../gateway/gateway-error.ts';
import type { Logger } from '../log.ts';
import type { SearchProvider } from './search-provider.ts';
import {
  type ReadPage,
  readUrlTool,
  runToolCall,
  searchAndNumber,
  searchInstructions,
  statusOf,
  webSearchTool,
} from './search-tools.ts';
import { createSources, renderSources, type Sources } from './sources.ts';

/** Rounds of tool calls before the model must answer with what it has. */
const maxToolRounds = 3;

/**
 * How many tool calls the model may have run for one reply (`TOOL_CALLS_PER_ROUND`,
 * `TOOL_CALLS_PER_REPLY`): each page read grows the next round's prompt, so these bound what a
 * reply can read, and the spend hold covers each round as it is actually sent.
 */
export interface ToolCallLimits {
  readonly perRound: number;
  readonly perReply: number;
}

/** A streamed reply that may search the web first; the events are the gateway's, plus status lines. */
export interface WebSearch {
  stream(request: {
    chat: ChatRequest;
    /** `/search`: search with the message as the query, whatever the model would decide. */
    isSearchForced: boolean;
  }): AsyncIterable<ChatStreamEvent>;
}

export interface WebSearchOptions {
  readonly gateway: Gateway;
  readonly provider: SearchProvider;
  readonly readPage: ReadPage;
  readonly toolCallLimits: ToolCallLimits;
  readonly logger: Logger;
}

interface SearchTurn {
  readonly options: WebSearchOptions;
  /** Its `hold` covers every call of the reply: the rounds, the search decision. */
  readonly chat: ChatRequest;
  readonly sources: Sources;
  readonly notices: string[];
}

/**
 * Web search for replies. A model whose capabilities say `tools` is offered `web_search` and
 * `read_url` and decides itself (OpenAI-shaped function calling, streamed); a model without them, or
 * one whose gateway refuses the tools, gets a search-first step: a small structured request decides
 * whether and what to search, and the results go into the message. Either way the reply ends with
 * its numbered sources as links.
 */
export function createWebSearch(options: WebSearchOptions): WebSearch {
  const modelsRefusingTools = new Set<string>();
  return {
    async *stream({ chat, isSearchForced }) {
      const turn: SearchTurn = {
        options,
        chat: { ...chat, messages: withSearchInstructions(chat.messages) },
        sources: createSources(),
        notices: [],
      };
      const canUseTools =
        options.gateway.capabilitiesOf(chat.model).tools && !modelsRefusingTools.has(chat.model);
      if (isSearchForced || !canUseTools) {
        yield* searchFirst({ turn, query: isSearchForced ? lastUserText(chat.messages) : undefined });
        return;
      }
      const outcome = yield* streamWithTools(turn);
      if (outcome === 'tools-refused') {
        options.logger.warn(
          { model: chat.model },
          'the gateway refused tools for this model; searching first instead',
        );
        modelsRefusingTools.add(chat.model);
        yield* searchFirst({ turn, query: undefined });
      }
    },
  };
}

/** The tool loop: stream, run the calls the model makes, stream again with their results. */
async function* streamWithTools(
  turn: SearchTurn,
): AsyncGenerator<ChatStreamEvent, 'answered' | 'tools-refused'> {
  let messages = [...turn.chat.messages];
  let callsRun = 0;
  for (let round = 0; round < maxToolRounds; round += 1) {
    const isLastRound = round === maxToolRounds - 1 || callsRun >= turn.options.toolCallLimits.perReply;
    const request: ChatRequest = {
      ...turn.chat,
      messages,
      ...(isLastRound ? {} : { tools: [webSearchTool, readUrlTool] }),
    };
    let calls: readonly ToolCall[] = [];
    let text = '';
    let finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined;
    try {
      for await (const event of turn.options.gateway.chatStream(request)) {
        if (event.type === 'tool-calls') calls = event.calls;
        else if (event.type === 'finish') finish = event;
        else {
          if (event.type === 'text-delta') text += event.text;
          yield event;
        }
      }
    } catch (error) {
      if (round === 0 && text === '' && isToolRefusal(error)) return 'tools-refused';
      throw error;
    }
    if (calls.length === 0 || !finish) {
      yield* endWithSources({ turn, text, finish });
      return 'answered';
    }
    messages = [...messages, { role: 'assistant', content: text, toolCalls: calls }];
    const limits = turn.options.toolCallLimits;
    for (const [index, call] of calls.entries()) {
      // Every call gets an answer (the model expects one per call), but past a limit it is not run.
      const refusal =
        index >= limits.perRound
          ? `Not run: at most ${limits.perRound} tool calls are run per round. Use the results you have, or call fewer tools at once.`
          : callsRun >= limits.perReply
            ? `Not run: this reply has used all ${limits.perReply} of its tool calls. Answer with what you have.`
            : undefined;
      let result = refusal;
      if (result === undefined) {
        callsRun += 1;
        yield { type: 'status', text: statusOf(call) };
        result = await runToolCall({ call, ...toolContext(turn) });
      }
      messages = [...messages, { role: 'tool', toolCallId: call.id, content: result }];
    }
    if (calls.length > limits.perRound || callsRun >= limits.perReply) {
      turn.options.logger.info(
        { requestedCalls: calls.length, callsRun, limits },
        'the model asked for more tool calls than a reply may run',
      );
    }
  }
  return 'answered';
}

/** Search first, then answer: for models without tools, and for `/search`. */
async function* searchFirst({
  turn,
  query,
}: {
  turn: SearchTurn;
  query: string | undefined;
}): AsyncGenerator<ChatStreamEvent> {
  const wanted = query ?? (await decideSearch(turn));
  let messages = turn.chat.messages;
  if (wanted) {
    yield { type: 'status', text: `🔎 searching: ${wanted.slice(0, 80)}` };
    const results = await searchAndNumber({ query: wanted, ...toolContext(turn) });
    messages = withResults(messages, { query: wanted, results });
  }
  let text = '';
  let finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined;
  for await (const event of turn.options.gateway.chatStream({ ...turn.chat, messages })) {
    if (event.type === 'finish') finish = event;
    else if (event.type !== 'tool-calls') {
      if (event.type === 'text-delta') text += event.text;
      yield event;
    }
  }
  yield* endWithSources({ turn, text, finish });
}

const decisionSchema = z.object({
  shouldSearch: z.boolean().describe('Whether a web search would help answer the message'),
  query: z.string().describe('The search query, or an empty string when no search is needed'),
});

/** The small structured request that decides whether and what to search; failures mean "no". */
async function decideSearch(turn: SearchTurn): Promise<string | undefined> {
  const message = lastUserText(turn.chat.messages);
  try {
    const decision = await turn.options.gateway.generateStructured({
      model: turn.chat.model,
      schema: decisionSchema,
      schemaName: 'search_decision',
      maxTokens: 100,
      hold: turn.chat.hold,
      ...(turn.chat.signal ? { signal: turn.chat.signal } : {}),
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
    turn.options.logger.warn(
      { err: error, model: turn.chat.model },
      'search decision failed; answering without search',
    );
    return undefined;
  }
}

/** The sources the reply cites as a last text delta, the notices, then the finish. */
async function* endWithSources({
  turn,
  text,
  finish,
}: {
  turn: SearchTurn;
  text: string;
  finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined;
}): AsyncGenerator<ChatStreamEvent> {
  const sourceList = renderSources(turn.sources.all, text);
  if (sourceList !== '' && /\S/.test(text)) yield { type: 'text-delta', text: sourceList };
  for (const notice of turn.notices) yield { type: 'notice', message: notice };
  if (finish) yield finish;
}

function toolContext(turn: SearchTurn) {
  return {
    provider: turn.options.provider,
    readPage: turn.options.readPage,
    sources: turn.sources,
    notices: turn.notices,
    signal: turn.chat.signal,
    logger: turn.options.logger,
  };
}

function withSearchInstructions(messages: readonly ChatMessage[]): ChatMessage[] {
  const [first, ...rest] = messages;
  if (first?.role !== 'system' || typeof first.content !== 'string') return [...messages];
  return [{ ...first, content: `${first.content}\n\n${searchInstructions}` }, ...rest];
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

function lastUserText(messages: readonly ChatMessage[]): string {
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

// The gateway (or the model behind it) does not take `tools` although the catalog says it does.
function isToolRefusal(error: unknown): boolean {
  return (
    error instanceof GatewayError &&
    error.kind === 'invalid-request' &&
    /tool|function/i.test(`${error.detail ?? ''} ${error.message}`)
  );
}

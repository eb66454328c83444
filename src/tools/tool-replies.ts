import type { Actor } from '../access/actor.ts';
import type { PlaceSettings } from '../administration/place-settings.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { ConversationKey } from '../conversation/turn.ts';
import type {
  ChatMessage,
  ChatRequest,
  ChatStreamEvent,
  ChatStreamRequest,
  ToolCall,
} from '../gateway/chat-types.ts';
import type { Gateway } from '../gateway/gateway-client.ts';
import type { Logger } from '../log.ts';
import { memoryToolSource, rememberToolName } from '../memory/memory-tools.ts';
import { renderNotice } from '../notices/render-notice.ts';
import { lastUserText, searchFirst } from '../search/search-first.ts';
import type { SearchProvider } from '../search/search-provider.ts';
import { searchInstructions } from '../search/search-tools.ts';
import { createSources, renderSources } from '../search/sources.ts';
import type { Tool, ToolRunContext } from './tool.ts';
import {
  governTools,
  isAllowedByRoles,
  isOutageForThisPerson,
  type ToolOffReason,
  whyToolIsOff,
} from './tool-governance.ts';
import { type AskApproval, streamWithTools, type ToolCallLimits } from './tool-loop.ts';
import { toolResultInstructions } from './tool-output.ts';
import type { Toolbox, ToolOutage } from './toolbox.ts';

/** A streamed reply that may call tools first; the events are the gateway's, plus tool steps. */
export interface ToolReplies {
  stream(request: {
    /**
     * Its hold covers every round, every priced tool call, the search decision. Its `onTextDelta`
     * gets the text only where the reply is the gateway's stream itself (no tools here); with
     * tools, the text comes as `text-delta` events.
     */
    chat: ChatStreamRequest;
    /** Who asked: the tools they may use here are governed by the place's rules. */
    actor: Actor;
    /** The place's settings as the engine read them for this turn (TOOLS, TOOL_ROLE_IDS, MEMORY). */
    settings: Pick<PlaceSettings, 'tools' | 'memory' | 'access'>;
    conversationKey: ConversationKey;
    /** `/search`: search with the message as the query, whatever the model would decide. */
    isSearchForced: boolean;
    /** Asks the asker before an acting tool runs; absent where nobody can be asked. */
    askApproval: AskApproval | undefined;
    /** A call its asker approved: run first, if this person may still use that tool here. */
    approvedCall?: ToolCall | undefined;
    /** Tells only the asker (a Connect link); absent where nobody can be told alone. */
    tellAskerPrivately?: ((text: string) => Promise<void>) | undefined;
  }): AsyncIterable<ChatStreamEvent>;
  /**
   * Whether TOOL_ROLE_IDS lets this person have `remember` here, whatever the model: where the owner
   * kept it to roles they lack, the held extraction does not keep notes for them either. (TOOLS
   * turning tools off leaves memory to the extraction: MEMORY is its own setting.)
   */
  allowsMemoryTools(request: {
    actor: Actor;
    settings: Pick<PlaceSettings, 'tools' | 'memory' | 'access'>;
  }): boolean;
  /**
   * Whether this reply's model will be offered the memory tools (`remember`, `forget`) here: it takes
   * tools, the gateway has not refused them, and the place's TOOLS and MEMORY let this person have
   * them. Otherwise memory is kept by the held extraction after the reply.
   */
  offersMemoryTools(request: {
    model: string;
    actor: Actor;
    /** The place's settings as the engine read them for this turn. */
    settings: Pick<PlaceSettings, 'tools' | 'memory' | 'access'>;
  }): boolean;
}

export interface ToolRepliesOptions {
  readonly gateway: Gateway;
  readonly toolbox: Toolbox;
  /** SearXNG, when SEARCH_URL is set: for search-first and `/search`. */
  readonly searchProvider: SearchProvider | undefined;
  readonly limits: ToolCallLimits;
  /** Where each tool call that runs is recorded. */
  readonly audit?: AuditLog;
  /**
   * The tools of OAuth connectors as this asker may use them (their own connection's, or a Connect
   * tool for each they lack), and those whose server is down now; absent without connectors.
   */
  readonly personalTools?: (request: {
    actor: Actor;
    conversationKey: ConversationKey;
    /** Whether the place's TOOLS and TOOL_ROLE_IDS could give this person a tool of that server here. */
    mayOffer: (server: string) => boolean;
  }) => Promise<{
    readonly tools: readonly Tool[];
    readonly outages: readonly ToolOutage[];
    /** What the asker should be told at the end of the reply (a connection that stopped working). */
    readonly notices: readonly string[];
  }>;
  readonly logger: Logger;
}

/**
 * Replies with tools. A model whose capabilities say `tools` is offered the tools the person may use
 * here and decides itself (OpenAI-shaped function calling, streamed, in the tool loop); a model
 * without them, or one whose gateway refuses them, gets search-first when web search is on; `/search`
 * always searches. The reply ends with its numbered sources, its notes, and how many tools it used.
 */
export function createToolReplies(options: ToolRepliesOptions): ToolReplies {
  const modelsRefusingTools = new Set<string>();
  const takesTools = (model: string) =>
    options.gateway.capabilitiesOf(model).tools && !modelsRefusingTools.has(model);
  return {
    allowsMemoryTools({ actor, settings }) {
      return isAllowedByRoles({ toolName: rememberToolName, settings, actor });
    },
    offersMemoryTools({ model, actor, settings }) {
      if (!options.gateway.capabilitiesOf(model).tools || modelsRefusingTools.has(model)) return false;
      return governTools({ tools: options.toolbox.all(), settings, actor }).some(
        (tool) => tool.source === memoryToolSource,
      );
    },
    stream(request) {
      const { personalTools } = options;
      // A model that takes no tools, or a forced search, has no use for them: no connector is asked.
      if (!personalTools || request.isSearchForced || !takesTools(request.chat.model)) {
        return streamWith(request, options.toolbox.all(), options.toolbox.outages());
      }
      // The asker's connectors join the toolbox's tools for this turn only.
      return (async function* () {
        const personal = await personalTools({
          actor: request.actor,
          conversationKey: request.conversationKey,
          // Judged by name before any of its tools is known, as a server that never came up is.
          mayOffer: (server) =>
            isOutageForThisPerson({
              outage: { source: server, lastTools: [] },
              settings: request.settings,
              actor: request.actor,
            }),
        }).catch((error: unknown) => {
          options.logger.warn({ err: error }, 'the connectors could not be read; answering without them');
          return { tools: [], outages: [], notices: [] };
        });
        yield* streamWith(
          request,
          [...options.toolbox.all(), ...personal.tools],
          [...options.toolbox.outages(), ...personal.outages],
        );
        for (const message of personal.notices) yield { type: 'notice', message };
      })();
    },
  };

  function streamWith(
    {
      chat,
      actor,
      settings,
      conversationKey,
      isSearchForced,
      askApproval,
      approvedCall,
      tellAskerPrivately,
    }: Parameters<ToolReplies['stream']>[0],
    everyTool: readonly Tool[],
    everyOutage: readonly ToolOutage[],
  ): AsyncIterable<ChatStreamEvent> {
    {
      const tools = governTools({ tools: everyTool, settings, actor });
      // Servers that are down and would have offered this person a tool here: the reply says so
      // (only where the model would have been offered tools at all).
      const outages =
        isSearchForced || !takesTools(chat.model)
          ? []
          : everyOutage.filter((outage) => isOutageForThisPerson({ outage, settings, actor }));
      // Without a tool this person may use here (none enabled, MEMORY off: the memory tools are
      // always in the toolbox, so the toolbox itself is never empty) a reply is the gateway's stream
      // itself: no generator between them, whose every chunk would cost more microtasks
      // (docs/benchmarks.md, issue 24's CPU profile).
      if (tools.length === 0 && outages.length === 0 && !isSearchForced && !approvedCall)
        return options.gateway.chatStream(chat);
      // A call to a tool parley has but this person may not use here is answered with why.
      const whyOffHere = (toolName: string): ToolOffReason | undefined => {
        const known = everyTool.find((tool) => tool.name === toolName);
        if (known) return whyToolIsOff({ tool: known, settings, actor });
        const missing = everyOutage
          .flatMap((outage) => outage.lastTools)
          .find((tool) => tool.name === toolName);
        if (missing === undefined) return undefined;
        return whyToolIsOff({ tool: missing, settings, actor }) ?? 'unavailable-now';
      };
      // The tool loop, search-first and the plain round read the text themselves (a round's text
      // for the next prompt, a refusal before any text, the sources after it): their requests go
      // without the sink, so every piece comes back to them as an event.
      const { onTextDelta: _textGoesAsEvents, ...eventsOnly } = chat;
      return toolStream({
        chat: eventsOnly,
        actor,
        tools,
        outages,
        whyOffHere,
        conversationKey,
        isSearchForced,
        askApproval,
        approvedCall,
        tellAskerPrivately,
      });
    }
  }

  async function* toolStream({
    chat,
    actor,
    tools,
    outages,
    whyOffHere,
    conversationKey,
    isSearchForced,
    askApproval,
    approvedCall,
    tellAskerPrivately,
  }: {
    chat: ChatRequest;
    actor: Actor;
    tools: readonly Tool[];
    outages: readonly ToolOutage[];
    whyOffHere: (toolName: string) => ToolOffReason | undefined;
    conversationKey: ConversationKey;
    isSearchForced: boolean;
    askApproval: AskApproval | undefined;
    approvedCall: ToolCall | undefined;
    tellAskerPrivately: ((text: string) => Promise<void>) | undefined;
  }): AsyncGenerator<ChatStreamEvent> {
    const provider = options.searchProvider;
    const canSearch = provider !== undefined && tools.some((tool) => tool.name === 'web_search');
    const context: ToolRunContext = {
      signal: chat.signal ?? new AbortController().signal,
      actor,
      conversationKey,
      sources: createSources(),
      notices: [],
      logger: options.logger,
      ...(tellAskerPrivately ? { tellAskerPrivately } : {}),
    };
    const instructed: ChatRequest = {
      ...chat,
      messages: withInstructions(chat.messages, { tools, outages, canSearch: canSearch || isSearchForced }),
    };
    const searchFirstWith = (query: string | undefined) =>
      provider
        ? searchFirst({
            gateway: options.gateway,
            provider,
            chat: instructed,
            query,
            context,
            logger: options.logger,
          })
        : undefined;
    let ending:
      | { text: string; finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined }
      | undefined;
    let stepsRun = 0;
    const canUseTools =
      tools.length > 0 &&
      options.gateway.capabilitiesOf(chat.model).tools &&
      !modelsRefusingTools.has(chat.model);
    const forced = isSearchForced ? searchFirstWith(lastUserText(chat.messages)) : undefined;
    if (approvedCall && (forced || !canUseTools)) {
      // The approved call runs only in the tool loop, where its result reaches the model.
      yield {
        type: 'notice',
        message: `🚫 ${approvedCall.name} was not run: no tools can be used here now.`,
      };
    }
    if (forced) ending = yield* forced;
    else if (canUseTools) {
      const loop = streamWithTools({
        gateway: options.gateway,
        chat: instructed,
        tools,
        limits: options.limits,
        context,
        askApproval,
        whyOffHere,
        ...(approvedCall ? { approvedCall } : {}),
        ...(options.audit ? { audit: options.audit } : {}),
        logger: options.logger,
      });
      for (let next = await loop.next(); ; next = await loop.next()) {
        if (next.done) {
          if (next.value.kind === 'answered') ending = next.value;
          else {
            options.logger.warn(
              { model: chat.model },
              'the gateway refused tools for this model; answering without them',
            );
            modelsRefusingTools.add(chat.model);
          }
          break;
        }
        if (next.value.type === 'tool-step' && next.value.step.status === 'running') stepsRun += 1;
        yield next.value;
      }
    }
    if (ending === undefined) {
      const fallback = canSearch ? searchFirstWith(undefined) : undefined;
      ending = fallback ? yield* fallback : yield* plainStream(options.gateway, instructed);
    }
    const sourceList = renderSources(context.sources.all, ending.text);
    if (sourceList !== '' && /\S/.test(ending.text)) yield { type: 'text-delta', text: sourceList };
    for (const notice of context.notices) yield { type: 'notice', message: notice };
    for (const outage of outages) {
      yield { type: 'notice', message: renderNotice({ type: 'tools-unavailable', server: outage.source }) };
    }
    if (stepsRun > 0)
      yield { type: 'notice', message: `🔧 used ${stepsRun === 1 ? '1 tool' : `${stepsRun} tools`}` };
    if (ending.finish) yield ending.finish;
  }
}

async function* plainStream(
  gateway: Gateway,
  chat: ChatRequest,
): AsyncGenerator<
  ChatStreamEvent,
  { text: string; finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined }
> {
  let text = '';
  let finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined;
  for await (const event of gateway.chatStream(chat)) {
    if (event.type === 'finish') finish = event;
    else {
      if (event.type === 'text-delta') text += event.text;
      yield event;
    }
  }
  return { text, finish };
}

function withInstructions(
  messages: readonly ChatMessage[],
  {
    tools,
    outages,
    canSearch,
  }: { tools: readonly Tool[]; outages: readonly ToolOutage[]; canSearch: boolean },
): ChatMessage[] {
  const additions = [
    ...(canSearch ? [searchInstructions] : []),
    ...(tools.length > 0 ? [toolResultInstructions] : []),
    // So the model does not claim it never had them, nor pretend to use them.
    ...outages.map(
      (outage) =>
        `The tools of ${outage.source} are unavailable right now (its server is down); if the person asks for them, say so.`,
    ),
  ];
  const [first, ...rest] = messages;
  if (additions.length === 0 || first?.role !== 'system' || typeof first.content !== 'string')
    return [...messages];
  return [{ ...first, content: `${first.content}\n\n${additions.join('\n\n')}` }, ...rest];
}

import { createHash } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.ts';
import { placeOfConversation } from '../conversation/turn.ts';
import type { ChatMessage, ChatRequest, ChatStreamEvent, ToolCall, ToolStep } from '../gateway/chat-types.ts';
import type { Gateway } from '../gateway/gateway-client.ts';
import { GatewayError } from '../gateway/gateway-error.ts';
import { coverRequest } from '../gateway/spend-cover.ts';
import type { Logger } from '../log.ts';
import { recordToolCall } from '../operations/metrics.ts';
import { traceToolCall } from '../tracing/tool-spans.ts';
import { isActingTool, type Tool, type ToolOutput, type ToolRunContext } from './tool.ts';
import type { ToolOffReason } from './tool-governance.ts';
import { wrapToolOutput } from './tool-output.ts';

/**
 * How many tool calls the model may have run for one reply (`TOOL_CALLS_PER_ROUND`,
 * `TOOL_CALLS_PER_REPLY`) over how many rounds (`TOOL_ROUNDS_PER_REPLY`): each result grows the next
 * round's prompt, so these bound what a reply can read, and the spend hold covers each round as it
 * is actually sent.
 */
export interface ToolCallLimits {
  readonly perRound: number;
  readonly perReply: number;
  /** Model requests of one reply, the last without tools; 3 when not given. */
  readonly rounds?: number;
}

/** Rounds of a tool reply where TOOL_ROUNDS_PER_REPLY does not say otherwise. */
const defaultToolRounds = 3;

/**
 * Whether an acting tool's question was put to the asker. The reply does not wait for the answer
 * (a waiting reply would hold its conversation's lock): Approve runs the call later, in a reply of
 * its own (`approvedCall`).
 */
export type ApprovalAsked = { readonly isAsked: true } | { readonly isAsked: false; readonly detail: string };

/**
 * Puts an acting tool's call before the person who asked for the reply, with the call's arguments
 * exactly as the model wrote them (`call.arguments`): those bytes are shown and, once approved, run.
 */
export type AskApproval = (request: { tool: Tool; call: ToolCall }) => Promise<ApprovalAsked>;

export interface ToolLoopRequest {
  readonly gateway: Gateway;
  /** The reply's request; its hold covers every round and every priced call. */
  readonly chat: ChatRequest;
  /** The tools this person may use here, already governed. */
  readonly tools: readonly Tool[];
  readonly limits: ToolCallLimits;
  readonly context: ToolRunContext;
  /** Absent where nobody can be asked (an acting tool is then not run). */
  readonly askApproval: AskApproval | undefined;
  /**
   * Why a tool parley has, but not among `tools`, is not this person's here, so a call to it is
   * answered with that rather than "unknown" (it is never offered).
   */
  readonly whyOffHere?: (toolName: string) => ToolOffReason | undefined;
  /**
   * A call its asker approved (Approve under its question): run first, with exactly the arguments
   * the question showed, as though the model had just made it; it counts toward the caps.
   */
  readonly approvedCall?: ToolCall;
  /** Where every call that runs is recorded: who asked, the tool, its arguments' size and hash. */
  readonly audit?: AuditLog;
  readonly logger: Logger;
}

/**
 * The tool loop: stream a round with the tools offered; when the model calls tools, run them (within
 * the caps, each within its deadline and size cap; an acting tool's call is put to its asker and
 * not run here) and stream the next round with their results, until the model answers or the rounds
 * run out. Yields the gateway's events (all but the last `finish`) plus a `tool-step` at the start
 * and end of every call.
 */
export async function* streamWithTools(
  request: ToolLoopRequest,
): AsyncGenerator<ChatStreamEvent, ToolLoopEnd> {
  let messages = [...request.chat.messages];
  const state = { callsRun: 0 };
  if (request.approvedCall) {
    const call = request.approvedCall;
    const answer = yield* runApprovedCall({ request, call, state });
    messages = [
      ...messages,
      { role: 'assistant', content: '', toolCalls: [call] },
      { role: 'tool', toolCallId: call.id, content: answer },
    ];
  }
  const rounds = request.limits.rounds ?? defaultToolRounds;
  for (let round = 0; round < rounds; round += 1) {
    const isLastRound = round === rounds - 1 || state.callsRun >= request.limits.perReply;
    const chat: ChatRequest = {
      ...request.chat,
      messages,
      ...(isLastRound || request.tools.length === 0 ? {} : { tools: request.tools.map(toDefinition) }),
    };
    let calls: readonly ToolCall[] = [];
    let text = '';
    let finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined;
    try {
      for await (const event of request.gateway.chatStream(chat)) {
        if (event.type === 'tool-calls') calls = event.calls;
        else if (event.type === 'finish') finish = event;
        else {
          if (event.type === 'text-delta') text += event.text;
          yield event;
        }
      }
    } catch (error) {
      if (round === 0 && text === '' && isToolRefusal(error)) return { kind: 'tools-refused' };
      throw error;
    }
    if (calls.length === 0 || !finish) return { kind: 'answered', text, finish };
    messages = [...messages, { role: 'assistant', content: text, toolCalls: calls }];
    for (const [index, call] of calls.entries()) {
      const answer = yield* runOneCall({ request, call, indexInRound: index, state });
      messages = [...messages, { role: 'tool', toolCallId: call.id, content: answer } satisfies ChatMessage];
    }
  }
  return { kind: 'answered', text: '', finish: undefined };
}

/**
 * How the loop ended: the model answered (its last round's text and finish, which the caller yields
 * after anything it adds, such as sources), or the gateway refused `tools` before anything showed.
 */
export type ToolLoopEnd =
  | {
      readonly kind: 'answered';
      readonly text: string;
      readonly finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined;
    }
  | { readonly kind: 'tools-refused' };

/** Why a call to a tool that is not offered was not run, in the model's words. */
const offWords: Record<ToolOffReason, string> = {
  'switched-off-here': 'switched off in this channel',
  'not-for-this-person': 'not available to this person here',
  'unavailable-now': 'unavailable right now: its server is down',
};

/** Runs one call (or says why not) and returns the text of the `tool` message that answers it. */
async function* runOneCall({
  request,
  call,
  indexInRound,
  state,
}: {
  request: ToolLoopRequest;
  call: ToolCall;
  indexInRound: number;
  state: { callsRun: number };
}): AsyncGenerator<ChatStreamEvent, string> {
  const tool = request.tools.find((candidate) => candidate.name === call.name);
  const parsed = argumentsOf(call);
  const offReason = tool ? undefined : request.whyOffHere?.(call.name);
  if (offReason !== undefined) {
    request.logger.info({ tool: call.name, offReason }, 'model called a tool that is off here');
    return `Not run: ${call.name} is ${offWords[offReason]}. Do not call it again in this reply; tell the person if it matters.`;
  }
  if (!tool || parsed === undefined) {
    request.logger.warn({ tool: call.name }, 'model called an unknown tool or gave bad arguments');
    return tool
      ? `Invalid arguments for ${call.name}: give a JSON object matching its schema.`
      : `Unknown tool ${call.name}. The tools you may call are: ${request.tools.map((known) => known.name).join(', ') || 'none'}.`;
  }
  const { limits } = request;
  // Every call gets an answer (the model expects one per call), but past a limit it is not run.
  const refusal =
    indexInRound >= limits.perRound
      ? `Not run: at most ${limits.perRound} tool calls are run per round. Use the results you have, or call fewer tools at once.`
      : state.callsRun >= limits.perReply
        ? `Not run: this reply has used all ${limits.perReply} of its tool calls. Answer with what you have.`
        : undefined;
  const title = tool.describeCall(parsed);
  if (refusal !== undefined) {
    request.logger.info({ tool: tool.name, limits }, 'a tool call past the limits was not run');
    return refusal;
  }
  const step = (status: ToolStep['status'], detail?: string, sources?: ToolOutput['sources']) =>
    stepEvent({ id: call.id, title, status, detail, sources });
  if (isActingTool(tool)) {
    // Asked or not, the call counts toward the reply's cap: a model cannot pile up questions.
    state.callsRun += 1;
    const asked = request.askApproval
      ? await request.askApproval({ tool, call })
      : { isAsked: false as const, detail: 'nobody can be asked to approve it here' };
    if (!asked.isAsked) {
      yield step('not-run', asked.detail);
      return `Not run: ${asked.detail}. Do not try this call again in this reply; tell the person what you would have done.`;
    }
    // Not run in this reply, which ends without waiting: Approve runs it in a reply of its own.
    yield step('not-run', 'waiting for approval');
    return awaitingApprovalText;
  }
  state.callsRun += 1;
  return yield* runToolCall({ request, tool, call, toolArguments: parsed, step, isApproved: false });
}

/** What the model is told of an acting call put to its asker: the reply goes on without it. */
const awaitingApprovalText =
  'Not run yet: the person has been asked to approve this call (Approve or Deny under the question shown to them). If they approve, it runs and you continue in a new message with its result. Do not call it again in this reply; tell the person it waits for their approval.';

/**
 * The approved call of a reply that resumes after Approve: the tool must still be one this person may
 * use here (the reply's tools are governed anew, with the place's settings of now), its arguments
 * are parsed from exactly the text the question showed, and it counts toward the reply's cap.
 */
async function* runApprovedCall({
  request,
  call,
  state,
}: {
  request: ToolLoopRequest;
  call: ToolCall;
  state: { callsRun: number };
}): AsyncGenerator<ChatStreamEvent, string> {
  const tool = request.tools.find((candidate) => candidate.name === call.name);
  const parsed = argumentsOf(call);
  if (!tool || parsed === undefined) {
    request.logger.warn({ tool: call.name }, 'an approved tool call is no longer allowed here');
    yield { type: 'notice', message: `🚫 ${call.name} was not run: it is not available to you here now.` };
    return `Not run: ${call.name} is not available to this person here any more. Tell them so.`;
  }
  state.callsRun += 1;
  const title = tool.describeCall(parsed);
  const step = (status: ToolStep['status'], detail?: string, sources?: ToolOutput['sources']) =>
    stepEvent({ id: call.id, title, status, detail, sources });
  return yield* runToolCall({ request, tool, call, toolArguments: parsed, step, isApproved: true });
}

/**
 * Where every tool call runs, read-only or approved: paid for first when it has a price, within its
 * deadline, counted and logged, its result wrapped as data for the model.
 */
async function* runToolCall({
  request,
  tool,
  call,
  toolArguments,
  step,
  isApproved,
}: {
  request: ToolLoopRequest;
  tool: Tool;
  /** The call as the model wrote it: its argument text is what the audit trail measures. */
  call: ToolCall;
  toolArguments: Record<string, unknown>;
  step: (status: ToolStep['status'], detail?: string, sources?: ToolOutput['sources']) => ChatStreamEvent;
  /** Its asker approved it (an acting tool, run in the reply after Approve). */
  isApproved: boolean;
}): AsyncGenerator<ChatStreamEvent, string> {
  yield step('running');
  // A tool with a price is paid for before it runs, on the reply's hold (refused: the reply stops).
  const covered =
    tool.priceNanos > 0
      ? await coverRequest(request.chat.hold, {
          model: request.chat.model,
          work: { kind: 'tool-call', priceNanos: tool.priceNanos },
        })
      : undefined;
  const startedAt = Date.now();
  const output = await traceToolCall({ name: tool.name, callId: call.id }, () =>
    runWithDeadline({ tool, toolArguments, context: request.context }),
  );
  covered?.record({ toolCalls: 1 });
  request.chat.hold.countToolCall({ tool: tool.name, isError: output.isError === true });
  const durationMs = Date.now() - startedAt;
  recordToolCall({
    tool: tool.name,
    source: tool.source,
    isError: output.isError === true,
    seconds: durationMs / 1000,
  });
  request.logger.info(
    { tool: tool.name, source: tool.source, isError: output.isError === true, durationMs },
    'tool call',
  );
  await recordInAudit({ request, tool, call, isApproved, isError: output.isError === true });
  yield step(
    output.isError ? 'error' : 'complete',
    output.isError ? firstLine(output.text) : undefined,
    output.sources,
  );
  return wrapToolOutput({ tool, output });
}

/**
 * The call's entry in the audit trail: who asked (and approved, for an acting tool: only its asker
 * may), which tool, how it ended, and the size and SHA-256 of the arguments as the model wrote them,
 * never the arguments themselves.
 */
function recordInAudit({
  request,
  tool,
  call,
  isApproved,
  isError,
}: {
  request: ToolLoopRequest;
  tool: Tool;
  call: ToolCall;
  isApproved: boolean;
  isError: boolean;
}): Promise<void> | undefined {
  const { actor, conversationKey } = request.context;
  const place = placeOfConversation(conversationKey);
  return request.audit?.record({
    platform: place.platform,
    workspace: place.workspace,
    channel: place.channel,
    actor: { id: actor.id, name: actor.name },
    kind: 'tool-call',
    // Only the asker may approve: the entry's actor is who approved it. Names stay out of `what`, so
    // that /forget, which renames the actor, leaves none behind.
    what: `${tool.name} (${tool.source})${isApproved ? ', approved' : ''}`,
    result: isError ? 'failed' : 'done',
    details: {
      tool: tool.name,
      argumentsBytes: Buffer.byteLength(call.arguments),
      argumentsSha256: createHash('sha256').update(call.arguments).digest('hex'),
      isApproved,
    },
  });
}

function stepEvent({
  id,
  title,
  status,
  detail,
  sources,
}: {
  id: string;
  title: string;
  status: ToolStep['status'];
  detail: string | undefined;
  sources: ToolOutput['sources'] | undefined;
}): ChatStreamEvent {
  return {
    type: 'tool-step',
    step: {
      id,
      title,
      status,
      ...(detail === undefined ? {} : { detail }),
      ...(sources === undefined || sources.length === 0 ? {} : { sources }),
    },
  };
}

async function runWithDeadline({
  tool,
  toolArguments,
  context,
}: {
  tool: Tool;
  toolArguments: Record<string, unknown>;
  context: ToolRunContext;
}): Promise<ToolOutput> {
  const deadline = AbortSignal.timeout(tool.deadlineMs);
  const signal = AbortSignal.any([context.signal, deadline]);
  try {
    return await Promise.race([
      tool.run({ arguments: toolArguments, context: { ...context, signal } }),
      new Promise<never>((_, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    ]);
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (deadline.aborted) {
      return {
        text: `The tool did not answer within ${Math.round(tool.deadlineMs / 1000)} s.`,
        isError: true,
      };
    }
    context.logger.warn({ err: error, tool: tool.name }, 'a tool call failed');
    return {
      text: `The tool failed: ${error instanceof Error ? error.message : String(error)}`,
      isError: true,
    };
  }
}

function toDefinition(tool: Tool) {
  return { name: tool.name, description: tool.description, parameters: tool.inputSchema };
}

// The model's arguments are its own JSON text: never trusted to parse, nor to have the right fields.
function argumentsOf(call: ToolCall): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(call.arguments || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').slice(0, 200);
}

// The gateway (or the model behind it) does not take `tools` although the catalog says it does.
function isToolRefusal(error: unknown): boolean {
  return (
    error instanceof GatewayError &&
    error.kind === 'invalid-request' &&
    /tool|function/i.test(`${error.detail ?? ''} ${error.message}`)
  );
}

import { type Span, SpanKind, trace } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_PARLEY_ACCESS_ALLOWED,
  ATTR_PARLEY_COMMAND_NAME,
  ATTR_PARLEY_HISTORY_TURNS,
  ATTR_PARLEY_PLATFORM,
  ATTR_PARLEY_REPLY_STATUS,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from './span-attributes.ts';
import { scheduledByLinks } from './trace-handover.ts';
import { currentTracer, inSpan, isTracingOn, markFailed } from './tracer.ts';

/** The agent name the turn spans carry (`invoke_agent parley`). */
const agentName = 'parley';

const platformOf = (conversationKey: string) => conversationKey.split(':')[0] ?? 'unknown';

/**
 * A chat turn, from the access decision to the last write, as an `invoke_agent parley` span: the
 * root of the turn's trace (or a child, for a reply a command or a button starts).
 */
export function traceTurn<Result>(
  { conversationKey }: { conversationKey: string },
  work: (span: Span) => Promise<Result>,
): Promise<Result> {
  return inSpan(
    {
      name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${agentName}`,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
        [ATTR_GEN_AI_AGENT_NAME]: agentName,
        [ATTR_GEN_AI_CONVERSATION_ID]: conversationKey,
        [ATTR_PARLEY_PLATFORM]: platformOf(conversationKey),
      },
    },
    work,
  );
}

/** How a turn ended, on its span: a reply that failed or was cut is an error; a refusal is not. */
export function recordTurnEnding(
  span: Span,
  { status, error }: { status: 'complete' | 'cut' | 'failed' | 'refused'; error?: unknown },
): void {
  span.setAttribute(ATTR_PARLEY_REPLY_STATUS, status);
  if (status === 'cut' || status === 'failed') markFailed(span, error ?? { kind: status }, `reply ${status}`);
}

/** A command (`command summarize`) or a pressed button (`action chat.regenerate`), as a span of its own. */
export function traceCommand<Result>(
  { kind, name, conversationKey }: { kind: 'command' | 'action'; name: string; conversationKey?: string },
  work: (span: Span) => Promise<Result>,
): Promise<Result> {
  return inSpan(
    {
      name: `${kind} ${name}`,
      attributes: {
        [ATTR_PARLEY_COMMAND_NAME]: name,
        ...(conversationKey === undefined
          ? {}
          : {
              [ATTR_GEN_AI_CONVERSATION_ID]: conversationKey,
              [ATTR_PARLEY_PLATFORM]: platformOf(conversationKey),
            }),
      },
    },
    work,
  );
}

/**
 * A platform event parley answers (`discord message`): the root of its trace, covering what the
 * adapter does around the reply (the access decision on the message's facts, a thread opened, its title).
 */
export function tracePlatformEvent<Result>(
  { name, conversationKey }: { name: string; conversationKey: string },
  work: (span: Span) => Promise<Result>,
): Promise<Result> {
  return inSpan(
    {
      name,
      isRoot: true,
      kind: SpanKind.CONSUMER,
      attributes: {
        [ATTR_GEN_AI_CONVERSATION_ID]: conversationKey,
        [ATTR_PARLEY_PLATFORM]: platformOf(conversationKey),
      },
    },
    work,
  );
}

/**
 * A scheduled run (`/remind`, `/schedule`): always the root of a trace of its own, linked to the
 * command that made its schedule when its engine carried that command's context (BullMQ's job data).
 */
export function traceScheduledRun<Result>(
  { kind, conversationKey }: { kind: string; conversationKey: string },
  work: (span: Span) => Promise<Result>,
): Promise<Result> {
  return inSpan(
    {
      name: `scheduled_run ${kind}`,
      isRoot: true,
      links: scheduledByLinks(),
      attributes: {
        [ATTR_GEN_AI_CONVERSATION_ID]: conversationKey,
        [ATTR_PARLEY_PLATFORM]: platformOf(conversationKey),
      },
    },
    work,
  );
}

/**
 * The access gate's decision, as an `authorize` span that says whether it let the person in: a child
 * of the turn, command or press that asked, never a trace of its own (a message parley only glances
 * at, to see whether it is addressed, leaves no trace).
 */
export function traceAccess<Verdict extends { readonly isAllowed: boolean }>(
  decide: () => Promise<Verdict>,
): Promise<Verdict> {
  if (!isTracingOn() || trace.getActiveSpan() === undefined) return decide();
  return inSpan({ name: 'authorize' }, async (span) => {
    const verdict = await decide();
    span.setAttribute(ATTR_PARLEY_ACCESS_ALLOWED, verdict.isAllowed);
    return verdict;
  });
}

/** A step of the engine (`history load`, `spend admit`, `summary fold`) as a span of its own. */
export function traceStep<Result>(name: string, work: (span: Span) => Promise<Result>): Promise<Result> {
  return inSpan({ name }, work);
}

/** A wait as a span of its own, ended by whoever sees it end (a failure marks it failed). */
export interface Wait {
  end(error?: unknown): void;
}

// With tracing off, one shared object: no span.
const untracedWait: Wait = { end: () => {} };

/**
 * A wait that is not one awaited call, as a span from now until `end`: the turn's wait for its
 * conversation's lock (earlier turns of the conversation answered first, or another process's).
 */
export function startWait(name: string): Wait {
  if (!isTracingOn()) return untracedWait;
  const span = currentTracer().startSpan(name);
  return {
    end(error) {
      if (error !== undefined) markFailed(span, error);
      span.end();
    },
  };
}

/** The conversation's history, read for a reply: a span with how many turns it held. */
export function traceHistoryLoad<Turns extends readonly unknown[]>(
  load: () => Promise<Turns>,
): Promise<Turns> {
  return inSpan({ name: 'history load' }, async (span) => {
    const turns = await load();
    span.setAttribute(ATTR_PARLEY_HISTORY_TURNS, turns.length);
    return turns;
  });
}

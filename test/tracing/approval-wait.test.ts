import { describe, expect, it, vi } from 'vitest';
import { createToolApprovals } from '../../src/tools/tool-approvals.ts';
import { ATTR_PARLEY_APPROVAL_ENDING, ATTR_PARLEY_LINK_REASON } from '../../src/tracing/span-attributes.ts';
import { inSpan } from '../../src/tracing/tracer.ts';
import { useInMemoryTracing } from '../support/in-memory-tracing.ts';

/**
 * Issue 38: the wait for Approve when nobody answers (the bot's Approve and its trace are in
 * reply-traces.test.ts): the question times out on a timer, in nobody's span, and its wait is a trace
 * of its own that links to the turn that asked. A question that could not be shown leaves no span.
 */
const exporter = useInMemoryTracing();
const actor = { id: 'ada', name: 'Ada', roleIds: [], isAdmin: false, context: 'server' } as const;
const call = { id: 'call-1', name: 'test_write', arguments: '{}' };
const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);

describe('an approval nobody answers', () => {
  it('ends its wait in a trace of its own, linked to the turn that asked', async () => {
    const approvals = createToolApprovals();
    const endings: unknown[] = [];
    await inSpan({ name: 'asking turn', isRoot: true }, () =>
      approvals.ask({
        askerId: actor.id,
        conversationKey: 'discord:G1:C1',
        call,
        timeoutMs: 50,
        show: async () => ({ ended: async (ending) => void endings.push(ending) }),
      }),
    );
    const [wait] = await vi.waitFor(() => {
      const found = named('approval wait test_write');
      if (found.length === 0) throw new Error('no wait span yet');
      return found;
    });
    const [asking] = named('asking turn');
    expect(wait?.parentSpanContext).toBeUndefined();
    expect(wait?.spanContext().traceId).not.toBe(asking?.spanContext().traceId);
    expect(wait?.attributes[ATTR_PARLEY_APPROVAL_ENDING]).toBe('timed-out');
    expect(wait?.links.map((link) => link.context.spanId)).toEqual([asking?.spanContext().spanId]);
    expect(wait?.links[0]?.attributes?.[ATTR_PARLEY_LINK_REASON]).toBe('asked for approval');
    expect(endings).toHaveLength(1);
    // A press after the time is up finds nothing, and draws no second wait.
    expect(approvals.take({ token: 'any', actor }).kind).toBe('gone');
    expect(named('approval wait test_write')).toHaveLength(1);
  });

  it('leaves no span when its question could not be shown', async () => {
    exporter.reset();
    const approvals = createToolApprovals();
    await expect(
      approvals.ask({
        askerId: actor.id,
        conversationKey: 'discord:G1:C1',
        call,
        timeoutMs: 50,
        show: async () => {
          throw new Error('Missing Access');
        },
      }),
    ).rejects.toThrow('Missing Access');
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(named('approval wait test_write')).toEqual([]);
  });
});

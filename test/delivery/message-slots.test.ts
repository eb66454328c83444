import { describe, expect, it } from 'vitest';
import { type MessageSlot, openSlot, planNextCall } from '../../src/delivery/message-slots.ts';

function slot(overrides: Partial<MessageSlot>): MessageSlot {
  return {
    message: { id: 'message' },
    desiredText: 'new text',
    deliveredText: 'old text',
    sentText: 'old text',
    desiredActions: [],
    shownActions: [],
    shownAtMs: 0,
    isSettled: false,
    nextCallAtMs: 0,
    ...overrides,
  };
}

describe('planNextCall', () => {
  it('plans nothing when every message shows what it should', () => {
    expect(planNextCall([slot({ deliveredText: 'new text' })], 0)).toBeNull();
  });

  it('posts first visible text before a due final edit, and a final edit before a growing one', () => {
    const growing = slot({ nextCallAtMs: 0 });
    const settled = slot({ isSettled: true, nextCallAtMs: 50 });
    const unposted = slot({ message: null, deliveredText: null, nextCallAtMs: 90 });
    expect(planNextCall([growing, settled, unposted], 100)).toMatchObject({ kind: 'post', slot: unposted });
    expect(planNextCall([growing, settled], 100)).toMatchObject({ kind: 'edit', slot: settled });
  });

  it('serves the longest-waiting message first within a rank', () => {
    const recent = slot({ nextCallAtMs: 80 });
    const stale = slot({ nextCallAtMs: 10 });
    expect(planNextCall([recent, stale], 100)?.slot).toBe(stale);
  });

  it('plans the soonest call when none is due yet', () => {
    const later = slot({ isSettled: true, nextCallAtMs: 900 });
    const sooner = slot({ nextCallAtMs: 500 });
    expect(planNextCall([later, sooner], 100)).toMatchObject({ slot: sooner, dueAtMs: 500 });
  });

  it('posts messages in order and never a blank one', () => {
    const blank = slot({ message: null, deliveredText: null, desiredText: ' \n' });
    const next = slot({ message: null, deliveredText: null });
    expect(planNextCall([blank, next], 0)).toBeNull();
    blank.isSettled = true;
    expect(planNextCall([blank, next], 0)).toMatchObject({ kind: 'post', slot: next });
  });
});

describe('openSlot', () => {
  it('reuses the last slot until it is settled', () => {
    const slots: MessageSlot[] = [];
    const first = openSlot(slots);
    expect(openSlot(slots)).toBe(first);
    first.isSettled = true;
    expect(openSlot(slots)).not.toBe(first);
    expect(slots).toHaveLength(2);
  });
});

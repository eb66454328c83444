import type { Clock } from '../delivery/clock.ts';

/**
 * One timer for every schedule of the process: entries fall into slots of `tickMs`, the slots wait
 * in time order, and a single clock timeout is armed for the earliest. 10,000 schedules due in the
 * same minute are one slot, not 10,000 timeouts. The clock is injected, so tests drive it.
 */
export interface TimerWheel<Payload> {
  /** Sets (or moves) `id` to fire at `dueAtMs` with `payload`; a time already past fires at the next tick. */
  set(id: string, dueAtMs: number, payload: Payload): void;
  delete(id: string): void;
  has(id: string): boolean;
  readonly size: number;
  /** Fires nothing more; entries stay until `set` or `delete`. */
  stop(): void;
}

/** The longest single wait: a timeout past ~24.8 days overflows, and clocks drift; the wheel re-arms. */
const longestWaitMs = 60 * 60_000;

export function createTimerWheel<Payload>({
  clock,
  onDue,
  tickMs = 1_000,
}: {
  clock: Clock;
  /** Called once per entry when its slot comes, in slot order; the entry is gone by then. */
  onDue: (id: string, dueAtMs: number, payload: Payload) => void;
  tickMs?: number;
}): TimerWheel<Payload> {
  const entries = new Map<string, { dueAtMs: number; slot: number; payload: Payload }>();
  const slots = new Map<number, Set<string>>();
  /** Slot numbers with entries, ascending. */
  const order: number[] = [];
  let timer: unknown;
  let armedSlot: number | undefined;
  let isStopped = false;

  const insertSlot = (slot: number) => {
    let low = 0;
    let high = order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((order[middle] ?? 0) < slot) low = middle + 1;
      else high = middle;
    }
    order.splice(low, 0, slot);
  };
  const removeFromSlot = (id: string, slot: number) => {
    const members = slots.get(slot);
    if (members === undefined) return;
    members.delete(id);
    if (members.size > 0) return;
    slots.delete(slot);
    const index = order.indexOf(slot);
    if (index >= 0) order.splice(index, 1);
  };
  const arm = () => {
    if (isStopped) return;
    const first = order[0];
    if (first === undefined) {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      armedSlot = undefined;
      return;
    }
    if (armedSlot === first && timer !== undefined) return;
    if (timer !== undefined) clock.clearTimeout(timer);
    armedSlot = first;
    const waitMs = Math.min(longestWaitMs, Math.max(0, first * tickMs - clock.now()));
    timer = clock.setTimeout(fire, waitMs);
  };
  const fire = () => {
    timer = undefined;
    armedSlot = undefined;
    const nowSlot = Math.floor(clock.now() / tickMs);
    const due: Array<[string, number, Payload]> = [];
    while (order[0] !== undefined && order[0] <= nowSlot) {
      const slot = order.shift() as number;
      for (const id of slots.get(slot) ?? []) {
        const entry = entries.get(id);
        if (entry === undefined) continue;
        entries.delete(id);
        due.push([id, entry.dueAtMs, entry.payload]);
      }
      slots.delete(slot);
    }
    arm();
    for (const [id, dueAtMs, payload] of due) onDue(id, dueAtMs, payload);
  };

  return {
    set(id, dueAtMs, payload) {
      const existing = entries.get(id);
      if (existing !== undefined) removeFromSlot(id, existing.slot);
      // The slot a time falls in fires once that slot has begun: never before the time.
      const slot = Math.ceil(dueAtMs / tickMs);
      entries.set(id, { dueAtMs, slot, payload });
      let members = slots.get(slot);
      if (members === undefined) {
        members = new Set();
        slots.set(slot, members);
        insertSlot(slot);
      }
      members.add(id);
      arm();
    },
    delete(id) {
      const existing = entries.get(id);
      if (existing === undefined) return;
      entries.delete(id);
      removeFromSlot(id, existing.slot);
      arm();
    },
    has: (id) => entries.has(id),
    get size() {
      return entries.size;
    },
    stop() {
      isStopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}

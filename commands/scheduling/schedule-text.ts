import type { Action } from '../../src/delivery/card.ts';
import type { ScheduleRecord } from '../../src/scheduling/schedule-record.ts';
import { describeInstant } from '../../src/scheduling/schedule-timing.ts';
import { encodeActionId } from '../action-store.ts';

/** One line about a schedule: what, when, its next run or why it is paused. */
export function describeSchedule(record: ScheduleRecord): string {
  const kind = record.kind === 'reminder' ? '⏰ reminder' : '🕘 schedule';
  const state =
    record.state === 'paused'
      ? `⏸ paused${record.pausedReason === undefined ? '' : `: ${record.pausedReason}`}`
      : record.nextRunAtMs === undefined
        ? 'no run left'
        : `next ${describeInstant(record.nextRunAtMs, record.timeZone)}`;
  const last =
    record.lastRun === undefined
      ? ''
      : ` · last run ${record.lastRun.status}${record.lastRun.note === undefined ? '' : ` (${record.lastRun.note})`}`;
  return `${kind} \`${record.id}\` “${record.what}” — ${record.whenText}, by ${record.owner.name} · ${state}${last}`;
}

/** Pause or Resume, and Delete, under a schedule's line. */
export function scheduleActions(record: ScheduleRecord): Action[] {
  return [
    record.state === 'active'
      ? {
          id: encodeActionId({ verb: 'schedule.pause', token: record.id }),
          label: 'Pause',
          style: 'secondary',
        }
      : {
          id: encodeActionId({ verb: 'schedule.resume', token: record.id }),
          label: 'Resume',
          style: 'primary',
        },
    { id: encodeActionId({ verb: 'schedule.delete', token: record.id }), label: 'Delete', style: 'danger' },
  ];
}

/** Whether this person may change a schedule: its owner, or an admin where it runs. */
export function mayChangeSchedule(user: { id: string; isAdmin: boolean }, record: ScheduleRecord): boolean {
  return user.id === record.owner.id || (user.isAdmin && record.kind === 'place');
}

import type { ScheduleRecord } from '../scheduling/schedule-record.ts';
import type { ScheduleChange } from './console-deeds.ts';
import { placePath } from './console-layout.ts';
import type { ConsolePlace } from './console-person.ts';
import { html, type SafeHtml } from './safe-html.ts';

/** What the last change said. */
export interface ScheduleChangeOutcome {
  readonly isChanged: boolean;
  readonly text: string;
}

const timeOf = (atMs: number | undefined) =>
  atMs === undefined ? 'none' : `${new Date(atMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The server's channel schedules, soonest first: what and when, whose, the next run and how the last
 * one went, with Pause or Resume and Delete (the buttons /schedules shows under each).
 */
export function schedulesPageBody({
  place,
  records,
  csrfToken,
  outcome,
}: {
  place: ConsolePlace;
  records: readonly ScheduleRecord[];
  csrfToken: string;
  outcome: ScheduleChangeOutcome | undefined;
}): SafeHtml {
  const action = placePath(place, 'schedules');
  const button = (record: ScheduleRecord, change: ScheduleChange, label: string) =>
    html`<form class="inline" method="post" action="${action}">
<input type="hidden" name="csrf" value="${csrfToken}">
<input type="hidden" name="id" value="${record.id}">
<input type="hidden" name="change" value="${change}">
<button type="submit" aria-label="${`${label} ${record.id}`}">${label}</button>
</form>`;
  const rows = records.map(
    (record) => html`<tr>
<td><code>${record.id}</code></td>
<td class="value">${record.what}<br><small>${record.whenText}</small></td>
<td>${record.owner.name}</td>
<td>${record.state === 'paused' ? html`paused${record.pausedReason === undefined ? '' : html`: ${record.pausedReason}`}` : timeOf(record.nextRunAtMs)}</td>
<td>${record.lastRun === undefined ? 'not yet' : html`${record.lastRun.status}${record.lastRun.note === undefined ? '' : html` (${record.lastRun.note})`}`}</td>
<td>${record.state === 'paused' ? button(record, 'resume', 'Resume') : html`${button(record, 'run', 'Run now')}${button(record, 'pause', 'Pause')}`}${button(record, 'delete', 'Delete')}</td>
</tr>`,
  );
  const notice =
    outcome === undefined
      ? ''
      : html`<p class="notice${outcome.isChanged ? '' : ' problem'}" role="${outcome.isChanged ? 'status' : 'alert'}">${outcome.text}</p>`;
  return html`${notice}
${
  rows.length === 0
    ? html`<p>No schedules in this server's channels. <code>/schedule</code> in a channel makes one.</p>`
    : html`<table>
<thead><tr><th scope="col">Id</th><th scope="col">What</th><th scope="col">Owner</th><th scope="col">Next run</th><th scope="col">Last run</th><th scope="col">Change</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}`;
}

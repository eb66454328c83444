import type { ActivityRates } from '../operations/activity-rates.ts';
import type { Readiness } from '../operations/health.ts';
import type { PlaceOverview } from './console-deeds.ts';
import { html, type SafeHtml } from './safe-html.ts';

/** The activity figures as the overview shows them, and its live stream sends them. */
export function activityFigures(activity: ActivityRates): {
  repliesPerMinute: string;
  errorRate: string;
  refusalRate: string;
  activityMinutes: string;
} {
  const share = (rate: number | undefined) =>
    rate === undefined ? 'none yet' : `${(rate * 100).toFixed(1)}%`;
  return {
    repliesPerMinute: activity.repliesPerMinute.toFixed(1),
    errorRate: share(activity.errorRate),
    refusalRate: share(activity.refusalRate),
    activityMinutes: String(Math.max(1, Math.round(activity.minutes))),
  };
}

function activityRows(activity: ActivityRates): SafeHtml {
  const figures = activityFigures(activity);
  return html`<tr><th scope="row">replies per minute (this process, the last <span data-live="activityMinutes">${figures.activityMinutes}</span> min)</th><td data-live="repliesPerMinute">${figures.repliesPerMinute}</td></tr>
<tr><th scope="row">replies that failed</th><td data-live="errorRate">${figures.errorRate}</td></tr>
<tr><th scope="row">requests refused (access rules or a budget)</th><td data-live="refusalRate">${figures.refusalRate}</td></tr>`;
}

const timeOf = (atMs: number | undefined) =>
  atMs === undefined ? 'none' : `${new Date(atMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The overview of a place: whether parley is ready (as GET /readyz says), replies being written now,
 * each budget as it stands today, the tools and whether their servers are up, the next runs.
 */
export function overviewPageBody({
  readiness,
  overview,
  figuresSource,
}: {
  readiness: Readiness;
  overview: PlaceOverview;
  /** Where the live figures stream from (Server-Sent Events). */
  figuresSource: string;
}): SafeHtml {
  const checks = Object.entries(readiness.checks).map(
    ([name, state]) => html`<tr><th scope="row">${name}</th><td>${state}</td></tr>`,
  );
  return html`<section id="live-figures" data-source="${figuresSource}" aria-live="polite">
<h2>Health</h2>
<p class="notice${readiness.isReady ? '' : ' problem'}" data-live="readiness">${readiness.isReady ? 'Ready' : `Not ready: ${readiness.reasons.join('; ')}`}</p>
${readiness.warnings.length === 0 ? '' : html`<ul>${readiness.warnings.map((warning) => html`<li>${warning}</li>`)}</ul>`}
<table><tbody>${checks}<tr><th scope="row">replies in flight (this process)</th><td data-live="repliesInFlight">${overview.repliesInFlight}</td></tr>
${activityRows(overview.activity)}</tbody></table>
</section>
<h2>Budgets today</h2>
${
  overview.budgets.length === 0
    ? html`<p>No budget applies here.</p>`
    : html`<table><thead><tr><th scope="col">Budget</th><th scope="col">Left</th><th scope="col">Resets</th></tr></thead>
<tbody>${overview.budgets.map((budget) => html`<tr><td>${budget.description}</td><td>${budget.left}</td><td>${budget.reset}</td></tr>`)}</tbody></table>`
}
<h2>Tools</h2>
${
  overview.tools.length === 0
    ? html`<p>No tools.</p>`
    : html`<table><thead><tr><th scope="col">Source</th><th scope="col">Tools</th><th scope="col">State</th></tr></thead>
<tbody>${overview.tools.map((tool) => html`<tr><td>${tool.source}</td><td>${tool.toolCount}</td><td>${tool.isUp ? 'up' : 'down'}</td></tr>`)}</tbody></table>`
}
<h2>Next runs</h2>
${
  overview.nextRuns.length === 0
    ? html`<p>No schedules here.</p>`
    : html`<ul>${overview.nextRuns.map((record) => html`<li>${timeOf(record.nextRunAtMs)} — ${record.what} (${record.owner.name})</li>`)}</ul>`
}`;
}

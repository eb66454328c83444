import { formatCost } from '../spending/prices.ts';
import { html, type SafeHtml } from './safe-html.ts';

/** Days the chart covers. */
export const chartDays = 30;

/** The chart's script and styles, for the page's head. */
export const spendChartHead = html`<link rel="stylesheet" href="/assets/uplot.css">
<script src="/assets/uplot.js" defer></script>
<script src="/assets/spend-chart.js" defer></script>`;

/**
 * The server's cost day by day over the last 30 days: a chart (drawn by uPlot where scripts run)
 * and under it the same numbers as a table, which is all a reader without scripts or a screen
 * reader needs. The numbers travel in a data attribute, never as inline script.
 */
export function spendChartSection(
  days: ReadonlyArray<{ readonly day: string; readonly costNanos: number; readonly requests: number }>,
): SafeHtml {
  const points = JSON.stringify(days.map((day) => ({ day: day.day, cost: day.costNanos / 1e9 })));
  const rows = days
    .filter((day) => day.requests > 0)
    .map(
      (day) =>
        html`<tr><td>${day.day}</td><td>${formatCost(day.costNanos)}</td><td>${day.requests}</td></tr>`,
    );
  return html`<h2>Cost, the last ${chartDays} days</h2>
<figure>
<div id="spend-chart" data-days="${points}" role="img" aria-label="${`The server's cost each day over the last ${chartDays} days; the table below has the numbers`}"></div>
<figcaption>
${
  rows.length === 0
    ? html`<p>Nothing spent in these days.</p>`
    : html`<table><thead><tr><th scope="col">Day</th><th scope="col">Cost</th><th scope="col">Requests</th></tr></thead><tbody>${rows}</tbody></table>`
}
</figcaption>
</figure>`;
}

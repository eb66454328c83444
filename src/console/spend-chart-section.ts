import { formatCost } from '../spending/prices.ts';
import { html, type SafeHtml } from './safe-html.ts';
import { type SpendGrouping, type SpendPeriod, spendGroupings } from './spend-history.ts';

/** Days the chart covers by day (the daily counters are kept 40). */
export const chartDays = 30;
/** Months the chart covers by month (the monthly counters are kept 13). */
export const chartMonths = 12;

/** The chart's script and styles, for the page's head. */
export const spendChartHead = html`<link rel="stylesheet" href="/assets/uplot.css">
<script src="/assets/uplot.js" defer></script>
<script src="/assets/spend-chart.js" defer></script>`;

const numberFormat = new Intl.NumberFormat('en-US');

const titles: Record<SpendGrouping, string> = {
  day: `Cost each day, the last ${chartDays} days`,
  week: `Cost each week, the last ${chartDays} days`,
  month: `Cost each month, the last ${chartMonths} months`,
};

/**
 * The server's cost over time, by day, week or month: a chart (drawn by uPlot where scripts run)
 * and under it the same numbers as a table, with each period's cost by model and its tool calls by
 * tool, which is all a reader without scripts or a screen reader needs. The numbers travel in a
 * data attribute, never as inline script.
 */
export function spendChartSection({
  grouping,
  periods,
  path,
}: {
  grouping: SpendGrouping;
  periods: readonly SpendPeriod[];
  /** The Spend page's path, for the links to the other groupings. */
  path: string;
}): SafeHtml {
  const points = JSON.stringify(
    periods.map((period) => ({ day: period.start, cost: period.costNanos / 1e9 })),
  );
  const rows = periods
    .filter((period) => period.requests > 0 || Object.keys(period.toolCalls).length > 0)
    .map(
      (period) =>
        html`<tr><td>${period.label}</td><td>${formatCost(period.costNanos)}</td><td>${period.requests}</td><td>${byModel(period)}</td><td>${byTool(period)}</td></tr>`,
    );
  const choices = spendGroupings.map((choice) =>
    choice === grouping
      ? html`<strong aria-current="page">by ${choice}</strong>`
      : html`<a href="${`${path}?by=${choice}`}">by ${choice}</a>`,
  );
  return html`<h2>${titles[grouping]}</h2>
<p>${choices.map((choice, index) => (index === 0 ? choice : html` · ${choice}`))}</p>
<figure>
<div id="spend-chart" data-days="${points}" role="img" aria-label="${`${titles[grouping]}; the table below has the numbers`}"></div>
<figcaption>
${
  rows.length === 0
    ? html`<p>Nothing spent in these ${grouping}s.</p>`
    : html`<table><thead><tr><th scope="col">${grouping === 'day' ? 'Day' : grouping === 'week' ? 'Week' : 'Month'}</th><th scope="col">Cost</th><th scope="col">Requests</th><th scope="col">By model</th><th scope="col">Tool calls</th></tr></thead><tbody>${rows}</tbody></table>`
}
</figcaption>
</figure>`;
}

function byModel(period: SpendPeriod): string {
  return Object.entries(period.costByModel)
    .sort(([, first], [, second]) => second - first)
    .map(([model, costNanos]) => `${model} ${formatCost(costNanos)}`)
    .join(', ');
}

function byTool(period: SpendPeriod): string {
  return Object.entries(period.toolCalls)
    .sort(([, first], [, second]) => second.calls - first.calls)
    .map(([tool, count]) =>
      count.errors === 0
        ? `${tool} ${numberFormat.format(count.calls)}`
        : `${tool} ${numberFormat.format(count.calls)} (${numberFormat.format(count.errors)} failed)`,
    )
    .join(', ');
}

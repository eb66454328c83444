import type { UsageTotals } from '../conversation/usage-ledger.ts';
import { formatCost } from '../spending/prices.ts';
import { html, type SafeHtml } from './safe-html.ts';

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * The whole server's spending today and this month, and its tool calls by tool with how many
 * failed: its own counters, as every reply already writes them.
 */
export function placeSpendSection({ today, month }: { today: UsageTotals; month: UsageTotals }): SafeHtml {
  const row = (label: string, value: (totals: UsageTotals) => string) =>
    html`<tr><th scope="row">${label}</th><td>${value(today)}</td><td>${value(month)}</td></tr>`;
  const tools = [...new Set([...Object.keys(today.toolCalls), ...Object.keys(month.toolCalls)])].sort(
    (first, second) => (month.toolCalls[second]?.calls ?? 0) - (month.toolCalls[first]?.calls ?? 0),
  );
  const calls = (totals: UsageTotals, tool: string) => {
    const counts = totals.toolCalls[tool];
    return counts === undefined
      ? '0'
      : `${numberFormat.format(counts.calls)} (${numberFormat.format(counts.errors)} failed)`;
  };
  return html`<h2>This server</h2>
<table>
<thead><tr><th scope="col"></th><th scope="col">Today</th><th scope="col">This month</th></tr></thead>
<tbody>
${row('Cost', (totals) => formatCost(totals.costNanos))}
${row('Requests', (totals) => numberFormat.format(totals.requests))}
${row('Tokens in', (totals) => numberFormat.format(totals.promptTokens))}
${row('Tokens out', (totals) => numberFormat.format(totals.completionTokens))}
${row('Images', (totals) => numberFormat.format(totals.images))}
</tbody>
</table>
<h2>Tool calls</h2>
${
  tools.length === 0
    ? html`<p>No tool calls yet.</p>`
    : html`<table>
<thead><tr><th scope="col">Tool</th><th scope="col">Today</th><th scope="col">This month</th></tr></thead>
<tbody>${tools.map((tool) => html`<tr><td><code>${tool}</code></td><td>${calls(today, tool)}</td><td>${calls(month, tool)}</td></tr>`)}</tbody>
</table>`
}`;
}

/** What each role with a budget spent here today and this month. */
export function roleSpendSection(
  roles: ReadonlyArray<{ readonly roleId: string; readonly todayNanos: number; readonly monthNanos: number }>,
): SafeHtml {
  return html`<h2>Roles with a budget</h2>
${
  roles.length === 0
    ? html`<p>No role has a budget here (<code>BUDGET_ROLE_DAILY</code>, <code>BUDGET_ROLE_MONTHLY</code>).</p>`
    : html`<table>
<thead><tr><th scope="col">Role</th><th scope="col">Today</th><th scope="col">This month</th></tr></thead>
<tbody>${roles.map((role) => html`<tr><td><code>${role.roleId}</code></td><td>${formatCost(role.todayNanos)}</td><td>${formatCost(role.monthNanos)}</td></tr>`)}</tbody>
</table>`
}`;
}

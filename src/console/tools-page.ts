import type { UsageTotals } from '../conversation/usage-ledger.ts';
import { formatCost } from '../spending/prices.ts';
import type { ToolsOverview } from './console-deeds.ts';
import { placePath } from './console-layout.ts';
import type { ConsolePlace } from './console-person.ts';
import { html, type SafeHtml } from './safe-html.ts';

/**
 * The tools: each with its server, whether a call waits for the asker's yes, its price, and its
 * calls and errors here today and this month; servers down now; approvals waiting; and where the
 * switches and the past approvals are (TOOLS on Budgets & access, tool calls in the audit trail).
 */
export function toolsPageBody({
  place,
  overview,
  today,
  month,
}: {
  place: ConsolePlace;
  overview: ToolsOverview;
  today: UsageTotals;
  month: UsageTotals;
}): SafeHtml {
  const calls = (totals: UsageTotals, name: string) => {
    const counts = totals.toolCalls[name];
    return counts === undefined ? '0' : `${counts.calls} (${counts.errors} failed)`;
  };
  const rows = overview.tools.map(
    (tool) => html`<tr>
<td><code>${tool.name}</code><br><small>${tool.title}</small></td>
<td>${tool.source}</td>
<td>${tool.asksFirst ? 'asks first' : 'runs'}</td>
<td>${tool.priceNanos === 0 ? 'free' : formatCost(tool.priceNanos)}</td>
<td>${calls(today, tool.name)}</td>
<td>${calls(month, tool.name)}</td>
</tr>`,
  );
  return html`<p>Approval questions waiting now (this process): ${overview.pendingApprovals}. Past approvals and every call are in the <a href="${`${placePath(place, 'audit')}?kind=tool-call`}">audit trail</a>; which tools are on here, per server or channel, is <code>TOOLS</code> on <a href="${placePath(place, 'settings')}">Budgets &amp; access</a>.</p>
${
  overview.down.length === 0
    ? ''
    : html`<h2>Servers down</h2><ul>${overview.down.map((server) => html`<li>${server.source}: ${server.toolNames.join(', ') || 'no tools listed yet'}</li>`)}</ul>`
}
<h2>Tools</h2>
${
  rows.length === 0
    ? html`<p>No tools.</p>`
    : html`<table>
<thead><tr><th scope="col">Tool</th><th scope="col">Server</th><th scope="col">Calls</th><th scope="col">Price</th><th scope="col">Today</th><th scope="col">This month</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}`;
}

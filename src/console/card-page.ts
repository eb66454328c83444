import type { Card } from '../delivery/card.ts';
import { html, type SafeHtml } from './safe-html.ts';

/**
 * A card a command answers with (`/usage`, `/usage --top`), as a section of a page: the same words
 * the command says in chat, escaped, its Markdown shown as written.
 */
export function cardSection(card: Card): SafeHtml {
  const fields = (card.fields ?? []).map(
    (field) =>
      html`<section class="field"><h3>${field.name}</h3><div class="value">${field.value}</div></section>`,
  );
  const table =
    card.table === undefined
      ? ''
      : html`<table><thead><tr>${card.table.columns.map((column) => html`<th scope="col">${column}</th>`)}</tr></thead>
<tbody>${card.table.rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table>`;
  return html`<h2>${card.title}</h2>
${card.description === undefined ? '' : html`<p class="value">${card.description}</p>`}
${fields}${table}
${card.footer === undefined ? '' : html`<p><small>${card.footer}</small></p>`}`;
}

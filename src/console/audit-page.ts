import { type AuditKind, auditKinds } from '../audit/audit-entry.ts';
import type { AuditPage } from '../audit/audit-log.ts';
import { placePath } from './console-layout.ts';
import type { ConsolePlace } from './console-person.ts';
import { html, type SafeHtml } from './safe-html.ts';

/** Entries on one page of the audit trail. */
export const auditEntriesPerPage = 25;

/** The filters of the audit page, read from its query; anything else is ignored. */
export interface AuditFilters {
  readonly kind: AuditKind | undefined;
  readonly personId: string | undefined;
  readonly cursor: string | undefined;
}

export function auditFiltersOf(query: (name: string) => string | undefined): AuditFilters {
  const kind = query('kind');
  const personId = query('person')?.trim();
  const cursor = query('cursor');
  return {
    kind: auditKinds.find((candidate) => candidate === kind),
    personId: personId !== undefined && /^[\w.-]{1,64}$/.test(personId) ? personId : undefined,
    cursor: cursor !== undefined && cursor.length <= 200 ? cursor : undefined,
  };
}

/** The audit trail of one place, newest first, filterable by kind and person, a page at a time. */
export function auditPageBody({
  place,
  page,
  filters,
}: {
  place: ConsolePlace;
  page: AuditPage;
  filters: AuditFilters;
}): SafeHtml {
  const action = placePath(place, 'audit');
  const kindOptions = auditKinds.map(
    (kind) => html`<option value="${kind}"${kind === filters.kind ? html` selected` : ''}>${kind}</option>`,
  );
  const rows = page.entries.map(
    (entry) => html`<tr>
<td>${new Date(entry.atMs).toISOString().slice(0, 16).replace('T', ' ')}</td>
<td>${entry.kind}</td>
<td>${entry.actor.name} <small>(${entry.actor.id})</small>${entry.onBehalfOf === undefined ? '' : html`<br><small>for ${entry.onBehalfOf.name}</small>`}</td>
<td class="value">${entry.what}</td>
<td>${entry.result}</td>
</tr>`,
  );
  const next =
    page.nextCursor === undefined
      ? ''
      : html`<p><a href="${`${action}?${new URLSearchParams({
          ...(filters.kind === undefined ? {} : { kind: filters.kind }),
          ...(filters.personId === undefined ? {} : { person: filters.personId }),
          cursor: page.nextCursor,
        }).toString()}`}">Older entries</a></p>`;
  return html`<form class="inline" method="get" action="${action}">
<label for="audit-kind">Kind</label>
<select id="audit-kind" name="kind"><option value="">all</option>${kindOptions}</select>
<label for="audit-person">Person id</label>
<input type="text" id="audit-person" name="person" value="${filters.personId ?? ''}" maxlength="64">
<button type="submit">Filter</button>
</form>
${page.overflowed > 0 ? html`<p class="notice">${page.overflowed} entries of these days were counted but not kept (the daily cap).</p>` : ''}
${
  rows.length === 0
    ? html`<p>Nothing recorded here${filters.kind === undefined && filters.personId === undefined ? '' : ' with these filters'}.</p>`
    : html`<table>
<thead><tr><th scope="col">When (UTC)</th><th scope="col">Kind</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Result</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${next}`;
}

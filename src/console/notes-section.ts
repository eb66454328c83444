import type { MemoryNote } from '../memory/memory-book.ts';
import { html, type SafeHtml } from './safe-html.ts';

/** What the last Forget said. */
export interface ForgetNotice {
  readonly isForgotten: boolean;
  readonly text: string;
}

/**
 * Notes parley keeps (a person's own, or the server's), each with Forget, and Forget all: the
 * buttons /memory shows, posting to `action`.
 */
export function notesSection({
  title,
  notes,
  action,
  csrfToken,
  notice,
}: {
  title: string;
  notes: readonly MemoryNote[];
  action: string;
  csrfToken: string;
  notice: ForgetNotice | undefined;
}): SafeHtml {
  const forgetButton = (noteId: string, label: string, accessibleName: string) =>
    html`<form class="inline" method="post" action="${action}">
<input type="hidden" name="csrf" value="${csrfToken}">
<input type="hidden" name="note" value="${noteId}">
<button type="submit" aria-label="${accessibleName}">${label}</button>
</form>`;
  const rows = notes.map(
    (note) => html`<tr>
<td class="value">${note.text}</td>
<td>${note.authorName}<br><small>${note.createdAt.slice(0, 10)}</small></td>
<td>${forgetButton(note.id, 'Forget', `Forget note ${note.id}`)}</td>
</tr>`,
  );
  const shown =
    notice === undefined
      ? ''
      : html`<p class="notice${notice.isForgotten ? '' : ' problem'}" role="${notice.isForgotten ? 'status' : 'alert'}">${notice.text}</p>`;
  return html`<h2>${title}</h2>
${shown}
${
  rows.length === 0
    ? html`<p>No notes.</p>`
    : html`<table>
<thead><tr><th scope="col">Note</th><th scope="col">Kept for</th><th scope="col">Forget</th></tr></thead>
<tbody>${rows}</tbody>
</table>
${forgetButton('all', 'Forget all', 'Forget every note')}`
}`;
}

import { placePath } from './console-layout.ts';
import type { ConsolePlace } from './console-person.ts';
import { html, type SafeHtml } from './safe-html.ts';

/** A place the person may open now, and whether as an admin. */
export interface PickablePlace {
  readonly place: ConsolePlace;
  readonly isAdmin: boolean;
}

/** The servers and workspaces where parley is and the person is now: admins get every page, members their own. */
export function placePickerBody(places: readonly PickablePlace[]): SafeHtml {
  if (places.length === 0) {
    return html`<p>parley is in none of your servers, or it cannot see you there now. Ask for a new link with <code>/console</code> where parley is.</p>`;
  }
  const items = places.map(({ place, isAdmin }) =>
    isAdmin
      ? html`<li><a href="${placePath(place, 'settings')}">${place.platform} ${place.workspace}</a> — admin: <a href="${placePath(place, 'overview')}">overview</a>, <a href="${placePath(place, 'audit')}">audit trail</a>, <a href="${placePath(place, 'spend')}">spend</a>, <a href="${placePath(place, 'me')}">my page</a></li>`
      : html`<li>${place.platform} ${place.workspace} — <a href="${placePath(place, 'me')}">My page</a></li>`,
  );
  return html`<h2>Choose a place</h2><ul>${items}</ul>`;
}

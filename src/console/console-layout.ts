import type { ConsolePerson, ConsolePlace } from './console-person.ts';
import { html, type SafeHtml } from './safe-html.ts';

/** The pages of one place, as the navigation names them; admins see them all, members only theirs. */
export const placePages = [
  { page: 'overview', label: 'Overview', isForAdmins: true },
  { page: 'settings', label: 'Budgets & access', isForAdmins: true },
  { page: 'audit', label: 'Audit trail', isForAdmins: true },
  { page: 'schedules', label: 'Schedules', isForAdmins: true },
  { page: 'memory', label: 'Memory', isForAdmins: true },
  { page: 'tools', label: 'Tools', isForAdmins: true },
  { page: 'spend', label: 'Spend', isForAdmins: true },
  { page: 'me', label: 'My page', isForAdmins: false },
] as const;

export type PlacePage = (typeof placePages)[number]['page'];

/** The path of a place's page; the ids are encoded, whatever a platform allows in them. */
export function placePath(place: ConsolePlace, page: PlacePage): string {
  return `/places/${encodeURIComponent(place.platform)}/${encodeURIComponent(place.workspace)}/${page}`;
}

/** The session's form token and the sign-out button every signed-in page carries. */
export interface SignedInFrame {
  readonly person: ConsolePerson;
  readonly csrfToken: string;
}

/** A whole page: title, navigation, the place's pages when there is a place, sign-out. */
export function consolePage({
  title,
  body,
  frame,
  place,
  isAdmin = false,
  head = '',
}: {
  title: string;
  body: SafeHtml;
  /** More of the page's head: the chart's script and styles, on the pages that draw one. */
  head?: SafeHtml | '';
  frame?: SignedInFrame;
  place?: ConsolePlace;
  isAdmin?: boolean;
}): string {
  const placeNavigation =
    place === undefined
      ? ''
      : placePages
          .filter((entry) => isAdmin || !entry.isForAdmins)
          .map((entry) => html`<a href="${placePath(place, entry.page)}">${entry.label}</a>`);
  const signedIn =
    frame === undefined
      ? ''
      : html`<span>Signed in as ${frame.person.name}</span>
<form class="inline" method="post" action="/sign-out"><input type="hidden" name="csrf" value="${frame.csrfToken}"><button type="submit">Sign out</button></form>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · parley console</title>
<link rel="stylesheet" href="/console.css">
${head}
</head>
<body>
<header><nav aria-label="Main"><a href="/"><strong>parley console</strong></a>${placeNavigation}${signedIn}</nav></header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>`.markup;
}

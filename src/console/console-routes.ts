/**
 * Who may reach a route: anyone (the sign-in pages, the stylesheet), a signed-in person, a person
 * present at the place now (their own page), or an admin of the place now, as `authorize` judges
 * them at this request.
 */
export type RouteAccess = 'anyone' | 'signed-in' | 'member' | 'admin';

export interface ConsoleRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly access: RouteAccess;
}

/**
 * Every route of the console, declared once: the server registers exactly these (a handler per
 * name, checked by the compiler), and the access matrix test has a row per name, so a route cannot
 * be added without saying who may reach it and proving it. Every POST needs the session's CSRF
 * token, except the link sign-in, which has no session yet and is guarded by its one-time token
 * and the Origin check.
 */
export const consoleRoutes = {
  home: { method: 'GET', path: '/', access: 'anyone' },
  stylesheet: { method: 'GET', path: '/console.css', access: 'anyone' },
  chartLibrary: { method: 'GET', path: '/assets/uplot.js', access: 'anyone' },
  chartLibraryStyles: { method: 'GET', path: '/assets/uplot.css', access: 'anyone' },
  spendChart: { method: 'GET', path: '/assets/spend-chart.js', access: 'anyone' },
  liveFigures: { method: 'GET', path: '/assets/live-figures.js', access: 'anyone' },
  linkSignInPage: { method: 'GET', path: '/sign-in/link/:token', access: 'anyone' },
  linkSignIn: { method: 'POST', path: '/sign-in/link', access: 'anyone' },
  discordSignIn: { method: 'GET', path: '/sign-in/discord', access: 'anyone' },
  discordCallback: { method: 'GET', path: '/sign-in/discord/callback', access: 'anyone' },
  slackSignIn: { method: 'GET', path: '/sign-in/slack', access: 'anyone' },
  slackCallback: { method: 'GET', path: '/sign-in/slack/callback', access: 'anyone' },
  signOut: { method: 'POST', path: '/sign-out', access: 'signed-in' },
  overview: { method: 'GET', path: '/places/:platform/:workspace/overview', access: 'admin' },
  overviewFigures: { method: 'GET', path: '/places/:platform/:workspace/overview/figures', access: 'admin' },
  myPage: { method: 'GET', path: '/places/:platform/:workspace/me', access: 'member' },
  forgetMyNotes: { method: 'POST', path: '/places/:platform/:workspace/me', access: 'member' },
  exportMyData: { method: 'POST', path: '/places/:platform/:workspace/me/export', access: 'member' },
  forgetMe: { method: 'POST', path: '/places/:platform/:workspace/me/forget', access: 'member' },
  memory: { method: 'GET', path: '/places/:platform/:workspace/memory', access: 'admin' },
  tools: { method: 'GET', path: '/places/:platform/:workspace/tools', access: 'admin' },
  forgetPlaceNotes: { method: 'POST', path: '/places/:platform/:workspace/memory', access: 'admin' },
  settings: { method: 'GET', path: '/places/:platform/:workspace/settings', access: 'admin' },
  changeSetting: { method: 'POST', path: '/places/:platform/:workspace/settings', access: 'admin' },
  audit: { method: 'GET', path: '/places/:platform/:workspace/audit', access: 'admin' },
  schedules: { method: 'GET', path: '/places/:platform/:workspace/schedules', access: 'admin' },
  changeSchedule: { method: 'POST', path: '/places/:platform/:workspace/schedules', access: 'admin' },
  spend: { method: 'GET', path: '/places/:platform/:workspace/spend', access: 'admin' },
  spendCsv: { method: 'GET', path: '/places/:platform/:workspace/spend.csv', access: 'admin' },
} as const satisfies Record<string, ConsoleRoute>;

export type ConsoleRouteName = keyof typeof consoleRoutes;

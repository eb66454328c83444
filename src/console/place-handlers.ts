import { conversationKeyOf } from '../conversation/turn.ts';
import { auditEntriesPerPage, auditFiltersOf, auditPageBody } from './audit-page.ts';
import { cardSection } from './card-page.ts';
import { scheduleChanges } from './console-deeds.ts';
import { consolePage, placePath } from './console-layout.ts';
import type { ConsoleRouteName } from './console-routes.ts';
import { liveFiguresStream } from './live-figures.ts';
import { type ForgetNotice, notesSection } from './notes-section.ts';
import { overviewPageBody } from './overview-page.ts';
import { placeSpendSection, roleSpendSection } from './place-spend-section.ts';
import { placeKey } from './place-standing.ts';
import { type RouteHandler, type RouteRequest, refusalPage } from './route-request.ts';
import { html } from './safe-html.ts';
import { type ScheduleChangeOutcome, schedulesPageBody } from './schedules-page.ts';
import { type ChangeOutcome, settingsPageBody } from './settings-page.ts';
import { chartDays, chartMonths, spendChartHead, spendChartSection } from './spend-chart-section.ts';
import { groupSpend, spendGroupings } from './spend-history.ts';
import { toolsPageBody } from './tools-page.ts';

/** The parts every place page has, once the route's access let the request through. */
function placeRequest({ session, place, standing }: RouteRequest) {
  if (session === undefined || place === undefined || standing === undefined) {
    throw new Error('a place route ran without its access check');
  }
  return {
    session,
    place,
    actor: standing.actor,
    isAdmin: standing.kind === 'admin',
    frame: { person: session.person, csrfToken: session.csrfToken },
  };
}

async function renderSettings(request: RouteRequest, outcome: ChangeOutcome | undefined): Promise<Response> {
  const { place, frame, isAdmin } = placeRequest(request);
  const { states } = await request.parts.places.statesAt({ ...place, channel: '' });
  const body = settingsPageBody({ place, states, csrfToken: frame.csrfToken, outcome });
  const status = outcome === undefined || outcome.isChanged ? 200 : 400;
  return request.context.html(
    consolePage({ title: 'Budgets & access', body, frame, place, isAdmin }),
    status,
  );
}

async function renderSchedules(
  request: RouteRequest,
  outcome: ScheduleChangeOutcome | undefined,
): Promise<Response> {
  const { place, frame, isAdmin } = placeRequest(request);
  const records = await request.parts.deeds.schedulesAt(place);
  const body = schedulesPageBody({ place, records, csrfToken: frame.csrfToken, outcome });
  const status = outcome === undefined || outcome.isChanged ? 200 : 400;
  return request.context.html(consolePage({ title: 'Schedules', body, frame, place, isAdmin }), status);
}

/** The note a Forget names, or undefined for all of them. */
function noteIdOf(value: string | undefined): string | undefined {
  return value === undefined || value === 'all' ? undefined : value.slice(0, 64);
}

/** Each person's own page: /usage's card, their notes with Forget, their reminders. */
async function renderMyPage(request: RouteRequest, notice: ForgetNotice | undefined): Promise<Response> {
  const { place, actor, frame, isAdmin } = placeRequest(request);
  const conversationKey = placeKey(place);
  const verdict = await request.parts.access.authorize({
    actor,
    conversationKey,
    capability: { kind: 'command', name: 'usage' },
  });
  if (!verdict.isAllowed) return refusalPage(request.context, 403, verdict.text);
  const [card, notes, reminders] = await Promise.all([
    request.parts.deeds.usageCard({ actor, conversationKey }),
    request.parts.deeds.notesAt({ actor, conversationKey, scope: 'person' }),
    request.parts.deeds.remindersOf({ actor, conversationKey }),
  ]);
  const body = html`${cardSection(card)}
${notesSection({ title: 'What parley remembers about you', notes, action: placePath(place, 'me'), csrfToken: frame.csrfToken, notice })}
<h2>Your data</h2>
<form class="inline" method="post" action="${`${placePath(place, 'me')}/export`}">
<input type="hidden" name="csrf" value="${frame.csrfToken}">
<button type="submit">Download everything parley keeps about you (JSON)</button>
</form>
<form method="post" action="${`${placePath(place, 'me')}/forget`}">
<input type="hidden" name="csrf" value="${frame.csrfToken}">
<p><input type="checkbox" id="confirm-forget" name="confirm" value="yes" required>
<label for="confirm-forget">Delete everything parley keeps about me, in every server here. This cannot be undone.</label></p>
<button type="submit">Forget me</button>
</form>
<h2>Your reminders</h2>
${
  reminders.length === 0
    ? html`<p>None. <code>/remind</code> makes one.</p>`
    : html`<ul>${reminders.map((record) => html`<li>${record.what} — ${record.whenText}${record.state === 'paused' ? ' (paused)' : ''}</li>`)}</ul>`
}`;
  const status = notice === undefined || notice.isForgotten ? 200 : 400;
  return request.context.html(consolePage({ title: 'My page', body, frame, place, isAdmin }), status);
}

/** The server's shared notes, for who may change them. */
async function renderMemory(request: RouteRequest, notice: ForgetNotice | undefined): Promise<Response> {
  const { place, actor, frame, isAdmin } = placeRequest(request);
  const notes = await request.parts.deeds.notesAt({
    actor,
    conversationKey: placeKey(place),
    scope: 'place',
  });
  const body = notesSection({
    title: 'What parley remembers for everyone here',
    notes,
    action: placePath(place, 'memory'),
    csrfToken: frame.csrfToken,
    notice,
  });
  const status = notice === undefined || notice.isForgotten ? 200 : 400;
  return request.context.html(consolePage({ title: 'Memory', body, frame, place, isAdmin }), status);
}

/** A channel id as platforms write them: letters, digits, `-` and `_`. */
const channelIdPattern = /^[\w-]{1,40}$/;

/** The pages of one place: its settings, audit trail and spend for admins, and each person's own. */
export const placeHandlers = {
  async overview(request) {
    const { place, actor, frame, isAdmin } = placeRequest(request);
    const [readiness, overview] = await Promise.all([
      request.parts.readiness(),
      request.parts.deeds.overviewOf({ actor, place }),
    ]);
    const body = overviewPageBody({
      readiness,
      overview,
      figuresSource: `${placePath(place, 'overview')}/figures`,
    });
    const head = html`<script src="/assets/live-figures.js" defer></script>`;
    return request.context.html(consolePage({ title: 'Overview', body, frame, place, isAdmin, head }));
  },
  overviewFigures: (request) => liveFiguresStream(request),
  myPage: (request) => renderMyPage(request, undefined),
  async forgetMyNotes(request) {
    const { place, actor } = placeRequest(request);
    const notice = await request.parts.deeds.forgetNotes({
      actor,
      conversationKey: placeKey(place),
      scope: 'person',
      noteId: noteIdOf(request.form.note),
    });
    return renderMyPage(request, notice);
  },
  async exportMyData(request) {
    const { place, actor } = placeRequest(request);
    const text = await request.parts.deeds.exportMine({ actor, conversationKey: placeKey(place) });
    return request.context.body(text, 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="parley-data-${place.platform}.json"`,
    });
  },
  async forgetMe(request) {
    const { place, actor } = placeRequest(request);
    // The form's checkbox is the confirmation /forget asks with its button.
    if (request.form.confirm !== 'yes') {
      return renderMyPage(request, {
        isForgotten: false,
        text: 'Tick the box to confirm: it cannot be undone.',
      });
    }
    const outcome = await request.parts.deeds.forgetMe({ actor, conversationKey: placeKey(place) });
    return renderMyPage(request, { isForgotten: outcome.isDone, text: outcome.text });
  },
  memory: (request) => renderMemory(request, undefined),
  async tools(request) {
    const { place, frame, isAdmin } = placeRequest(request);
    const { today, month } = await request.parts.deeds.placeSpend(place);
    const body = toolsPageBody({ place, overview: request.parts.deeds.toolsOverview(), today, month });
    return request.context.html(consolePage({ title: 'Tools', body, frame, place, isAdmin }));
  },
  async forgetPlaceNotes(request) {
    const { place, actor } = placeRequest(request);
    const notice = await request.parts.deeds.forgetNotes({
      actor,
      conversationKey: placeKey(place),
      scope: 'place',
      noteId: noteIdOf(request.form.note),
    });
    return renderMemory(request, notice);
  },
  settings: (request) => renderSettings(request, undefined),
  async changeSetting(request) {
    const { place, actor } = placeRequest(request);
    const channel = request.form.channel?.trim() ?? '';
    if (channel !== '' && !channelIdPattern.test(channel)) {
      return renderSettings(request, {
        isChanged: false,
        problem: 'A channel id is letters and digits only.',
      });
    }
    const value = request.form.value?.trim() ?? '';
    const outcome = await request.parts.deeds.changeSetting({
      actor,
      conversationKey: conversationKeyOf({ platform: place.platform, workspace: place.workspace, channel }),
      name: request.form.setting ?? '',
      scope: channel === '' ? 'server' : 'channel',
      text: value === '' ? undefined : value,
    });
    return renderSettings(request, outcome);
  },
  async audit(request) {
    const { place, frame, isAdmin } = placeRequest(request);
    const filters = auditFiltersOf((name) => request.context.req.query(name));
    const page = await request.parts.audit.read({
      platform: place.platform,
      workspace: place.workspace,
      ...(filters.kind === undefined ? {} : { kind: filters.kind }),
      ...(filters.personId === undefined ? {} : { personId: filters.personId }),
      ...(filters.cursor === undefined ? {} : { cursor: filters.cursor }),
      limit: auditEntriesPerPage,
    });
    return request.context.html(
      consolePage({
        title: 'Audit trail',
        body: auditPageBody({ place, page, filters }),
        frame,
        place,
        isAdmin,
      }),
    );
  },
  schedules: (request) => renderSchedules(request, undefined),
  async changeSchedule(request) {
    const { place, actor } = placeRequest(request);
    const change = scheduleChanges.find((candidate) => candidate === request.form.change);
    const scheduleId = request.form.id ?? '';
    if (change === undefined || !/^[\w-]{1,64}$/.test(scheduleId)) {
      return renderSchedules(request, { isChanged: false, text: 'That is not a change a schedule takes.' });
    }
    const outcome = await request.parts.deeds.changeSchedule({ actor, place, scheduleId, change });
    return renderSchedules(request, outcome);
  },
  async spend(request) {
    const { place, frame, isAdmin } = placeRequest(request);
    const grouping = spendGroupings.find((choice) => choice === request.context.req.query('by')) ?? 'day';
    const [card, totals, history, roles] = await Promise.all([
      request.parts.deeds.topSpendCard({ conversationKey: placeKey(place) }),
      request.parts.deeds.placeSpend(place),
      request.parts.deeds.placeHistory({ ...place, days: chartDays, months: chartMonths }),
      request.parts.deeds.roleSpend(place),
    ]);
    const path = request.context.req.path;
    const csvPath = `${path}.csv`;
    const periods = groupSpend({ grouping, ...history });
    const body = html`${placeSpendSection(totals)}${spendChartSection({ grouping, periods, path })}${cardSection(card)}${roleSpendSection(roles)}<p><a href="${csvPath}">Download as CSV</a></p>`;
    return request.context.html(
      consolePage({ title: 'Spend', body, frame, place, isAdmin, head: spendChartHead }),
    );
  },
  async spendCsv(request) {
    const { place } = placeRequest(request);
    const csv = await request.parts.deeds.topSpendCsv({ conversationKey: placeKey(place) });
    return request.context.body(csv, 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="parley-spend.csv"',
    });
  },
} satisfies Partial<Record<ConsoleRouteName, RouteHandler>>;

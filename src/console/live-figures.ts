import { streamSSE } from 'hono/streaming';
import { activityFigures } from './overview-page.ts';
import { standingAt } from './place-standing.ts';
import type { RouteRequest } from './route-request.ts';

/** How long one stream of live figures lasts; the browser's EventSource then opens a new one. */
export const liveFiguresLifetimeMs = 10 * 60_000;

/**
 * The overview's live figures as Server-Sent Events: replies in flight and readiness, every
 * `parts.liveFiguresIntervalMs`. The person's standing is asked of the platform again before each
 * event, as for every request: an admin demoted while the page is open gets a `refused` event and
 * the stream ends. A stream ends after ten minutes, and the reconnection is a new request through
 * the route's whole guard.
 */
export function liveFiguresStream(request: RouteRequest): Response {
  const { context, parts, session, place } = request;
  if (session === undefined || place === undefined)
    throw new Error('live figures ran without their access check');
  return streamSSE(context, async (stream) => {
    const endsAtMs = Date.now() + liveFiguresLifetimeMs;
    while (!stream.aborted && Date.now() < endsAtMs) {
      const standing = await standingAt({
        deeds: parts.deeds,
        access: parts.access,
        person: session.person,
        place,
        isRecorded: false,
      });
      if (standing.kind !== 'admin') {
        await stream.writeSSE({ event: 'refused', data: '{}' });
        return;
      }
      const [readiness, overview] = await Promise.all([
        parts.readiness(),
        parts.deeds.overviewOf({ actor: standing.actor, place }),
      ]);
      await stream.writeSSE({
        event: 'figures',
        data: JSON.stringify({
          repliesInFlight: String(overview.repliesInFlight),
          ...activityFigures(overview.activity),
          readiness: readiness.isReady ? 'Ready' : `Not ready: ${readiness.reasons.join('; ')}`,
        }),
      });
      await stream.sleep(parts.liveFiguresIntervalMs);
    }
  });
}

/**
 * Keeps the overview's `[data-live]` figures current from its event stream: text only
 * (`textContent`), so nothing the stream says becomes markup.
 */
export const liveFiguresScript = `(() => {
  const section = document.getElementById('live-figures');
  if (!section || typeof EventSource === 'undefined') return;
  const events = new EventSource(section.dataset.source);
  events.addEventListener('figures', (event) => {
    const figures = JSON.parse(event.data);
    for (const element of section.querySelectorAll('[data-live]')) {
      const value = figures[element.dataset.live];
      if (typeof value === 'string') element.textContent = value;
    }
    section.dataset.state = 'live';
  });
  events.addEventListener('refused', () => {
    events.close();
    section.dataset.state = 'refused';
  });
})();
`;

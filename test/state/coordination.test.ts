import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { type Coordination, openCoordination } from '../../src/state/coordination.ts';
import { openStore, type Store } from '../../src/state/create-store.ts';

const logger = pino({ level: 'silent' });
const redisUrl = process.env.REDIS_URL;
/** Stores opened by a test, each closed at the end of the file. */
const openedStores: Store[] = [];
const openTestStore = (storeUrl: string): Store => {
  const store = openStore({ storeUrl, logger: pino({ level: 'silent' }) });
  openedStores.push(store);
  return store;
};
afterAll(async () => {
  await Promise.all(openedStores.map((store) => store.close()));
});
const opened: Coordination[] = [];
const open = (storeUrl: string, namespace: string) => {
  const coordination = openCoordination({
    store: openTestStore(storeUrl),
    logger,
    lockTtlMs: 5_000,
    namespace,
  });
  opened.push(coordination);
  return coordination;
};
afterAll(async () => {
  await Promise.all(opened.map((coordination) => coordination.close()));
});

describe('coordination on a store that is not Redis', () => {
  it('is this process alone: in-process lock and dedupe', async () => {
    const coordination = open('memory://', 'coordination');
    expect(coordination.isShared).toBe(false);
    expect(await coordination.eventDeduper.isFirstSighting('event:1', 60_000)).toBe(true);
    expect(await coordination.eventDeduper.isFirstSighting('event:1', 60_000)).toBe(false);
  });
});

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'coordination on Redis (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'coordination on Redis',
  () => {
    it('lets exactly one of three processes take each platform event, retries included', async () => {
      const namespace = `parley-test-coordination-${randomUUID()}`;
      const processes = [
        open(redisUrl ?? '', namespace),
        open(redisUrl ?? '', namespace),
        open(redisUrl ?? '', namespace),
      ];
      expect(processes.every((coordination) => coordination.isShared)).toBe(true);
      const eventIds = Array.from({ length: 50 }, (_, index) => `event:Ev${index}`);
      // Every event reaches every process twice (a delivery and Slack's retry), all at once.
      const sightings = await Promise.all(
        eventIds.flatMap((eventId) =>
          [...processes, ...processes].map(async (coordination) => ({
            eventId,
            isFirst: await coordination.eventDeduper.isFirstSighting(eventId, 10 * 60_000),
          })),
        ),
      );
      for (const eventId of eventIds) {
        expect(sightings.filter((sighting) => sighting.eventId === eventId && sighting.isFirst)).toHaveLength(
          1,
        );
      }
    });
  },
);

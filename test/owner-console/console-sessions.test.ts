import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import type { ConsolePerson } from '../../src/console/console-person.ts';
import { createConsoleSessions, isCsrfTokenOf } from '../../src/console/console-sessions.ts';

const person: ConsolePerson = {
  platform: 'discord',
  userId: '42',
  name: 'Ada',
  signedInWith: 'discord',
  places: [{ platform: 'discord', workspace: '7' }],
};

describe('console sessions', () => {
  it('last their lifetime, end when signed out, and know their own CSRF token only', async () => {
    let nowMs = Date.parse('2026-12-01T10:00:00Z');
    const sessions = createConsoleSessions({ store: new Keyv(), lifetimeMs: 60 * 60_000, now: () => nowMs });
    const session = await sessions.start(person);
    expect(session.id).toMatch(/^[\w-]{43}$/);
    expect((await sessions.find(session.id))?.person).toEqual(person);
    expect(isCsrfTokenOf(session, session.csrfToken)).toBe(true);
    expect(isCsrfTokenOf(session, `${session.csrfToken}x`)).toBe(false);
    expect(isCsrfTokenOf(session, undefined)).toBe(false);

    nowMs += 60 * 60_000;
    expect(await sessions.find(session.id)).toBeUndefined();

    const next = await sessions.start(person);
    await sessions.end(next.id);
    expect(await sessions.find(next.id)).toBeUndefined();
    expect(await sessions.find('../../etc/passwd')).toBeUndefined();
    expect(await sessions.find(undefined)).toBeUndefined();
  });
});

import Keyv from 'keyv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConsolePerson } from '../../src/console/console-person.ts';
import { createOneTimeLinks, oneTimeLinkLifetimeMs } from '../../src/console/one-time-links.ts';

const person: ConsolePerson = {
  platform: 'discord',
  userId: '42',
  name: 'Ada',
  signedInWith: 'link',
  places: [{ platform: 'discord', workspace: '7' }],
};

afterEach(() => {
  vi.useRealTimers();
});

describe('one-time sign-in links', () => {
  it('work once', async () => {
    const links = createOneTimeLinks({ store: new Keyv() });
    const token = await links.issue(person);
    expect(token).toMatch(/^[\w-]{43}$/);
    const [first, second] = await Promise.all([links.redeem(token), links.redeem(token)]);
    expect([first, second].filter((found) => found !== undefined)).toEqual([person]);
    expect(await links.redeem(token)).toBeUndefined();
  });

  it('work for ten minutes and not a moment longer', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-01T10:00:00Z'));
    const links = createOneTimeLinks({ store: new Keyv() });
    const late = await links.issue(person);
    const inTime = await links.issue(person);
    vi.setSystemTime(new Date(Date.now() + oneTimeLinkLifetimeMs - 1_000));
    expect(await links.redeem(inTime)).toEqual(person);
    vi.setSystemTime(new Date(Date.now() + 2_000));
    expect(await links.redeem(late)).toBeUndefined();
  });

  it('refuse what is not a token', async () => {
    const links = createOneTimeLinks({ store: new Keyv() });
    expect(await links.redeem('../../etc')).toBeUndefined();
    expect(await links.redeem('')).toBeUndefined();
  });
});

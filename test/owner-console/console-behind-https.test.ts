import Keyv from 'keyv';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../src/console/console-app.ts';
import { createConsoleSessions } from '../../src/console/console-sessions.ts';
import { createOneTimeLinks } from '../../src/console/one-time-links.ts';
import type { ConsoleParts } from '../../src/console/route-request.ts';
import { createSignInLimit } from '../../src/console/sign-in-limit.ts';

/** What a link sign-in never reaches: asking it would be a bug in the route's guard. */
const unreachable = new Proxy(
  {},
  {
    get(_target, name) {
      throw new Error(`a link sign-in asked ${String(name)}`);
    },
  },
) as never;

describe('the console behind https', () => {
  it('sets a __Host- session cookie that is Secure, and asks browsers for https only', async () => {
    const links = createOneTimeLinks({ store: new Keyv() });
    const parts: ConsoleParts = {
      origin: 'https://parley.example.org',
      isSecure: true,
      sessions: createConsoleSessions({ store: new Keyv(), lifetimeMs: 3_600_000, now: () => Date.now() }),
      sessionLifetimeMs: 3_600_000,
      links,
      pendingSignIns: new Keyv(),
      discordSignIn: undefined,
      slackSignIn: undefined,
      signInLimit: createSignInLimit(),
      deeds: unreachable,
      access: unreachable,
      places: unreachable,
      audit: unreachable,
      logger: pino({ level: 'silent' }),
      readiness: unreachable,
      liveFiguresIntervalMs: 10_000,
    };
    const app = createConsoleApp(parts);
    const token = await links.issue({
      platform: 'console',
      userId: 'owner',
      name: 'owner',
      signedInWith: 'link',
      places: [{ platform: 'console', workspace: 'local' }],
    });
    const response = await app.request('https://parley.example.org/sign-in/link', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://parley.example.org' },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('set-cookie')).toMatch(
      /^__Host-parley-console=[\w-]{43}; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000');
  });
});

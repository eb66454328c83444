import { z } from 'zod';
import { quoteSettingValue } from './quote-setting-value.ts';
import { document, httpUrl, optionalText, section, text, wholeNumber } from './setting-schemas.ts';

const optionalPort = optionalText.transform((value, context): number | undefined => {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (Number.isInteger(port) && port >= 0 && port <= 65_535) return port;
  context.addIssue({
    code: 'custom',
    message: `must be a port number (0–65535), got ${quoteSettingValue(value)}`,
  });
  return z.NEVER;
});

const optionalHttpUrl = (example: string) => optionalText.pipe(httpUrl({ example }).optional());

/**
 * The owner's console (issue 35): a web page for owners and members, off unless CONSOLE_PORT is set.
 * Sign-in with Discord needs its OAuth2 client; without one, `/console` and the terminal give one-time
 * links.
 */
export const consoleSettings = section('Owner’s console', {
  CONSOLE_PORT: document(optionalPort, {
    description:
      'Port of the owner’s console (a web page: settings, audit trail, spend, schedules, each person’s own page). Unset: no console.',
    typeText: 'port',
  }),
  CONSOLE_HOST: document(text('127.0.0.1'), {
    description:
      'The interface the console listens on. Any address other than this machine’s own needs CONSOLE_PUBLIC_URL with https (put a TLS proxy in front).',
    typeText: 'host name or IP address',
  }),
  CONSOLE_PUBLIC_URL: document(optionalHttpUrl('https://parley.example.org'), {
    description:
      'The console’s address as browsers reach it (its sign-in links and OAuth redirect are made from it). Must be https when CONSOLE_HOST is not a loopback address; with https the session cookie is Secure.',
    typeText: 'http(s) URL',
    defaultText: 'http://CONSOLE_HOST:CONSOLE_PORT',
  }),
  CONSOLE_SESSION_HOURS: document(wholeNumber({ min: 1, max: 720, fallback: 12 }), {
    description: 'How long a console sign-in lasts, in hours, before it must be made again.',
  }),
  CONSOLE_DISCORD_CLIENT_ID: document(optionalText, {
    description:
      'The Discord application’s OAuth2 client id, for “Sign in with Discord” (scopes identify guilds). Its redirect must be CONSOLE_PUBLIC_URL/sign-in/discord/callback.',
    typeText: 'text',
  }),
  CONSOLE_DISCORD_CLIENT_SECRET: document(optionalText, {
    description: 'The Discord application’s OAuth2 client secret. It never appears in logs.',
    typeText: 'secret text',
  }),
  CONSOLE_DISCORD_OAUTH_URL: document(optionalHttpUrl('https://discord.com'), {
    description:
      'Where Discord’s OAuth2 pages and API are (authorize at /oauth2/authorize, token at /api/oauth2/token). Change only for a local fake.',
    typeText: 'http(s) URL',
    defaultText: 'https://discord.com',
  }),
  CONSOLE_SLACK_CLIENT_ID: document(optionalText, {
    description:
      'The Slack app’s client id, for “Sign in with Slack” (OpenID Connect, scopes openid profile). Its redirect URL must be CONSOLE_PUBLIC_URL/sign-in/slack/callback.',
    typeText: 'text',
  }),
  CONSOLE_SLACK_CLIENT_SECRET: document(optionalText, {
    description: 'The Slack app’s client secret. It never appears in logs.',
    typeText: 'secret text',
  }),
  CONSOLE_SLACK_OAUTH_URL: document(optionalHttpUrl('https://slack.com'), {
    description:
      'Where Slack’s sign-in page and Web API are (authorize at /openid/connect/authorize, methods under /api/). Change only for a local fake.',
    typeText: 'http(s) URL',
    defaultText: 'https://slack.com',
  }),
});

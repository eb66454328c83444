import { createConsoleDeeds } from '../../commands/console-deeds.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import type { App } from '../../src/app.ts';
import { type RunningConsole, startConsoleServer } from '../../src/console/console-server.ts';
import { checkReadiness } from '../../src/operations/health.ts';
import type { FakeDiscord } from '../fakes/discord/index.ts';
import type { FakeSlack } from '../fakes/slack/index.ts';

/**
 * The owner's console beside a real bot on the fake Discord or Slack, as bin/parley.ts starts it:
 * on a free port of 127.0.0.1, signing in through the fake's OAuth2 or OpenID Connect pages, on the
 * bot's own store, gate, settings and audit trail.
 */
export async function startWebConsoleUnderTest(
  under: { services: CommandServices; app: App; discord?: FakeDiscord; slack?: FakeSlack },
  {
    signInAttemptsPerMinute = 1_000,
    liveFiguresIntervalMs = 100,
  }: {
    /** Tests sign many people in from one address; the limit's own test lowers it. */
    signInAttemptsPerMinute?: number;
    /** The overview's live figures, often enough for a test to see a few. */
    liveFiguresIntervalMs?: number;
  } = {},
): Promise<RunningConsole> {
  const desk = under.services.consoleLinks;
  if (desk === undefined) throw new Error('the command services have no console link desk');
  const { discord, slack } = under;
  const running = await startConsoleServer({
    settings: {
      port: 0,
      host: '127.0.0.1',
      publicUrl: undefined,
      sessionMs: 60 * 60_000,
      discord: discord === undefined ? undefined : { ...discord.oauth.client, oauthUrl: discord.origin },
      slack: slack === undefined ? undefined : { ...slack.openId.client, oauthUrl: slack.origin },
    },
    store: under.app.store,
    links: desk.links,
    deeds: createConsoleDeeds(under.services),
    access: under.app.access,
    places: under.app.places,
    audit: under.app.audit,
    logger: under.services.logger,
    signInAttemptsPerMinute,
    liveFiguresIntervalMs,
    readiness: () =>
      checkReadiness({
        platforms: discord === undefined ? ['slack'] : ['discord'],
        probeStore: under.app.probeStore,
      }),
  });
  desk.open(running.origin);
  return {
    ...running,
    async close() {
      desk.close();
      await running.close();
    },
  };
}

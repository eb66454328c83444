import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeGateway, modelChatRequests, startFakeGateway } from '../fakes/gateway/index.ts';
import { appMention, type FakeSlack, slashCommand, startFakeSlack } from '../fakes/slack/index.ts';
import { type BotProcess, startBotProcess } from '../support/bot-process.ts';

/**
 * Two real bot processes (`node bin/parley.ts`) on one Redis: what one spends the other's budget
 * knows, and what /config changes through one the other obeys at once. Both serve the same fake
 * Slack workspace over HTTP; each delivery goes to the process the test picks.
 */
const redisUrl = process.env.REDIS_URL;
/** Generous: two bot processes share two cores with the rest of the suite. */
const stepTimeoutMs = 20_000;
const apiKey = 'two-process-key-0123456789';
let gateway: FakeGateway | undefined;
let slack: FakeSlack | undefined;
const bots: BotProcess[] = [];

afterEach(async () => {
  for (const bot of bots.splice(0)) {
    bot.kill('SIGTERM');
    await bot.exited;
  }
  await Promise.all([gateway?.close(), slack?.close()]);
});

async function startBot(fakeSlack: FakeSlack, fakeGateway: FakeGateway): Promise<string> {
  const bot = startBotProcess({
    environment: {
      GATEWAY_BASE_URL: fakeGateway.baseUrl,
      GATEWAY_API_KEY: apiKey,
      SLACK_BOT_TOKEN: fakeSlack.botToken,
      SLACK_SIGNING_SECRET: fakeSlack.signingSecret,
      SLACK_API_URL: fakeSlack.apiUrl,
      PORT: '0',
      HEALTH_PORT: 'off',
      STORE_URL: redisUrl ?? '',
    },
  });
  bots.push(bot);
  const listening = await bot.waitForLog(
    (line) => line.mode === 'http' && typeof line.url === 'string',
    15_000,
  );
  return String(listening.url).replace('0.0.0.0', '127.0.0.1');
}

describe.skipIf(redisUrl === undefined)(
  redisUrl === undefined
    ? 'two bot processes on one Redis (skipped: REDIS_URL is not set; run with REDIS_URL=redis://127.0.0.1:6379)'
    : 'two bot processes on one Redis',
  () => {
    it('share budgets and /config: one spends, the other refuses; one changes, the other obeys', async () => {
      gateway = await startFakeGateway({ apiKey });
      slack = await startFakeSlack();
      const fakeSlack = slack;
      // Ids of this run alone, so runs sharing the Redis never see each other's counters.
      const suffix = randomBytes(4).toString('hex').toUpperCase();
      const channel = `C0${suffix}`;
      const person = `U0${suffix}`;
      const admin = `U1${suffix}`;
      fakeSlack.addUser({ id: admin, name: 'grace', isAdmin: true });
      const [first, second] = await Promise.all([startBot(fakeSlack, gateway), startBot(fakeSlack, gateway)]);
      const chatRequests = () =>
        // The start-up checks of the gateway (a chat request without messages) are no model calls.
        modelChatRequests(gateway?.requests ?? []);
      // A step that times out says which, with what both bots wrote.
      const explained = <Value>(step: string, waiting: Promise<Value>) =>
        waiting.catch((error: unknown) => {
          const outputs = bots.map((bot, index) => `--- bot ${index + 1}:\n${bot.output().slice(-3000)}`);
          throw new Error(`${step}: ${String(error)}\n${outputs.join('\n')}`);
        });
      const config = async (url: string, text: string) => {
        fakeSlack.appUrl = url;
        const before = fakeSlack.ephemeralMessages.length;
        await fakeSlack.deliverSlashCommand({
          command: slashCommand({ command: '/config', text, user: admin, channel }),
        });
        return explained(
          `/config ${text}`,
          fakeSlack.waitFor(
            () => fakeSlack.ephemeralMessages.slice(before).find((message) => /✅|⚠/.test(message.text)),
            stepTimeoutMs,
          ),
        );
      };
      const mention = async (url: string, text: string, expected: RegExp) => {
        fakeSlack.appUrl = url;
        await fakeSlack.deliverEvent({ event: appMention({ channel, text, user: person }) });
        return explained(
          `mention "${text}"`,
          fakeSlack.waitFor(
            () => fakeSlack.calls.find((call) => expected.test(JSON.stringify(call.arguments))),
            stepTimeoutMs,
          ),
        );
      };

      // gpt-4o-mini (config/models.json): 0.15 a million tokens in, so 20,000 in cost 0.003.
      const set = await config(first, 'set BUDGET_USER_DAILY 0.002 --scope channel');
      expect(set.text).toContain('BUDGET_USER_DAILY for this channel is now 0.002.');
      gateway.enqueue({ text: 'First answer.', usage: { prompt_tokens: 20_000, completion_tokens: 10 } });
      await mention(first, 'one', /First answer\./);
      // Its Regenerate button comes once the reply is over and its spending is counted; before that
      // the other process could not know it yet.
      await explained(
        'the first reply finishing',
        fakeSlack.waitFor(
          () => fakeSlack.calls.find((call) => JSON.stringify(call.arguments).includes('chat.regenerate')),
          stepTimeoutMs,
        ),
      );
      expect(chatRequests()).toHaveLength(1);

      await mention(second, 'two', /Not sent: your daily budget has 0 of 0\.002 left/);
      expect(chatRequests()).toHaveLength(1);

      const lifted = await config(second, 'reset BUDGET_USER_DAILY --scope channel');
      expect(lifted.text).toContain('BUDGET_USER_DAILY for this channel is back to the default.');
      gateway.enqueue({ text: 'Third answer.' });
      await mention(first, 'three', /Third answer\./);
      expect(chatRequests()).toHaveLength(2);
    }, 90_000);
  },
);

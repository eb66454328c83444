import { randomBytes } from 'node:crypto';
import { directMessage } from '../../test/fakes/slack/index.ts';
import { type BotMessageText, isBurstAnswered, judgeBurst } from '../burst-judgement.ts';
import { buttonLabels, eventually } from '../discord-observations.ts';
import { type DiscordWorld, startDiscordWorld } from '../discord-world.ts';
import { type Scenario, type ScenarioContext, ScenarioSkipped } from '../scenario.ts';
import { slackButtonLabels, slackMessageText } from '../slack-observations.ts';
import { type SlackWorld, startSlackWorld } from '../slack-world.ts';
import { readHistory } from '../store-observations.ts';
import { newTurnMarker, type TurnMarker } from '../turn-markers.ts';

/**
 * Bursts: messages sent back to back in one conversation must be answered, and recorded, in the
 * order they were sent (Discord's snowflake, Slack's `ts`), whatever each one met on its way to the
 * conversation's lock (look-ups, access, dedupe) and whichever process took it.
 */
type Platform = 'discord' | 'slack';

/** Long enough for a burst of 100 in one channel: Discord allows 5 new messages per 5 s there. */
const timeoutMsOf = (count: number) => 30_000 + count * 1_500;

async function worldOf({
  context,
  platform,
  processCount,
}: {
  context: ScenarioContext;
  platform: Platform;
  processCount: number;
}): Promise<DiscordWorld | SlackWorld> {
  if (processCount > 1 && context.redisUrl === undefined) {
    throw new ScenarioSkipped('REDIS_URL is not set (several processes share a Redis store)');
  }
  // Each burst has a conversation of its own (a new channel, a new DM), so worlds sharing Redis never meet.
  const settings = processCount > 1 && context.redisUrl !== undefined ? { storeUrl: context.redisUrl } : {};
  const key = `order-${platform}-${processCount}`;
  return platform === 'discord'
    ? context.shared(key, () => startDiscordWorld({ settings, processCount }))
    : context.shared(key, () => startSlackWorld({ settings, processCount }));
}

/** Sends the burst on Discord: mentions in one fresh channel, back to back. */
function discordBurst(world: DiscordWorld, markers: readonly TurnMarker[]) {
  const channelId = world.newChannel();
  for (const marker of markers) {
    world.discord.sendUserMessage({ channelId, content: `burst ${marker.marker}`, mentionsBot: true });
  }
  return {
    messages: (): BotMessageText[] =>
      world.discord
        .messages(channelId)
        .filter((message) => message.author.id === world.discord.bot.id)
        .map((message) => ({
          text: message.content,
          isOpen: buttonLabels(message).includes('Stop'),
          buttons: buttonLabels(message),
        })),
    conversationKey: world.conversationKey(channelId),
  };
}

/**
 * Sends the burst on Slack: messages in one DM (one conversation), each delivered as its own HTTP
 * request at once, so they may reach the bot in any order; with two processes each event reaches
 * both, the second delivery as Slack's retry.
 */
function slackBurst(world: SlackWorld, markers: readonly TurnMarker[]) {
  const channel = `D0BURST${randomBytes(3).toString('hex').toUpperCase()}`;
  for (const marker of markers) {
    const event = directMessage({ channel, text: `burst ${marker.marker}` });
    const eventId = `Ev${String(event.ts).replace('.', '')}`;
    const [first, second] = world.appUrls;
    void world.slack.deliverEvent({ event, eventId, ...(first === undefined ? {} : { url: first }) });
    if (second !== undefined) {
      void world.slack.deliverEvent({
        event,
        eventId,
        url: second,
        retryNum: 1,
        retryReason: 'http_timeout',
      });
    }
  }
  return {
    messages: (): BotMessageText[] =>
      world.slack
        .messages(channel)
        .filter((message) => message.botId !== undefined)
        .map((message) => ({
          text: slackMessageText(message),
          isOpen: message.streamingState === 'in_progress' || slackButtonLabels(message).includes('Stop'),
          buttons: slackButtonLabels(message),
        })),
    conversationKey: world.conversationKey(channel),
  };
}

function burstScenario({
  platform,
  count,
  processCount,
  isInShortRun,
}: {
  platform: Platform;
  count: number;
  processCount: number;
  isInShortRun: boolean;
}): Scenario {
  const where =
    platform === 'discord'
      ? 'mentions in one Discord channel'
      : 'messages in one Slack DM (HTTP, all at once)';
  const processes = processCount === 1 ? 'one process, SQLite' : `${processCount} processes, Redis`;
  return {
    id: `burst-${platform}-${count}${processCount > 1 ? `-x${processCount}` : ''}`,
    area: 'order',
    fault: `${count} ${where}, sent back to back (${processes})`,
    expected: 'each answered once, shown and recorded in the order sent',
    expectedOutcome: 'survived',
    isInShortRun,
    async run(context) {
      const world = await worldOf({ context, platform, processCount });
      const markers = Array.from({ length: count }, () => newTurnMarker());
      const burst =
        platform === 'discord'
          ? discordBurst(world as DiscordWorld, markers)
          : slackBurst(world as SlackWorld, markers);
      const startedAtMs = Date.now();
      const isSettled = await eventually({
        isDone: () => isBurstAnswered(markers, burst.messages()),
        timeoutMs: timeoutMsOf(count),
      });
      const seconds = ((Date.now() - startedAtMs) / 1000).toFixed(0);
      const history = await readHistory({ storeUrl: world.storeUrl, conversationKey: burst.conversationKey });
      return judgeBurst({
        markers,
        messages: burst.messages(),
        history,
        isSettled,
        prefix: `${isSettled ? `all shown in ${seconds} s` : `not all shown within ${seconds} s`}`,
      });
    },
  };
}

export const orderScenarios: Scenario[] = [
  burstScenario({ platform: 'discord', count: 20, processCount: 1, isInShortRun: true }),
  burstScenario({ platform: 'slack', count: 20, processCount: 1, isInShortRun: false }),
  burstScenario({ platform: 'discord', count: 20, processCount: 2, isInShortRun: true }),
  burstScenario({ platform: 'slack', count: 20, processCount: 2, isInShortRun: false }),
  burstScenario({ platform: 'discord', count: 100, processCount: 1, isInShortRun: false }),
  burstScenario({ platform: 'slack', count: 100, processCount: 1, isInShortRun: false }),
  burstScenario({ platform: 'discord', count: 100, processCount: 2, isInShortRun: false }),
  burstScenario({ platform: 'slack', count: 100, processCount: 2, isInShortRun: false }),
];

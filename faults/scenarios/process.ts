import { buttonLabels, eventually } from '../discord-observations.ts';
import { askOnDiscord, type DiscordTurn, observeDiscordTurn, sendDiscordMention } from '../discord-turns.ts';
import { type DiscordWorld, startDiscordWorld } from '../discord-world.ts';
import type { Scenario, ScenarioContext } from '../scenario.ts';
import { observeSlackTurn, slackMention } from '../slack-turns.ts';
import { startSlackWorld } from '../slack-world.ts';
import { describeHistory } from '../store-observations.ts';
import { quote } from '../turn-judgement.ts';
import { newTurnMarker } from '../turn-markers.ts';

/** Process faults: each kills or stops its own bot, and starts it again on the same store. */
const slowReply = { chunkSize: 10, delayBetweenChunksMs: 100 };
const interruptedNote = /interrupted by a restart/;
const recoveredLog = 'finished replies interrupted by a restart';

async function ownDiscordWorld(
  context: ScenarioContext,
  environment: Record<string, string> = {},
): Promise<DiscordWorld> {
  return context.own(await startDiscordWorld({ settings: { environment } }));
}

/** Starts a slow reply on Discord and resolves once a few edits of it are on screen. */
async function startStreaming(world: DiscordWorld, channelId: string) {
  world.gateway.enqueue(slowReply);
  const sent = sendDiscordMention({ world, channelId, marker: newTurnMarker({ replyLength: 2000 }) });
  const message = await world.discord.waitFor(
    () =>
      world.discord
        .messages(channelId)
        .find((candidate) => candidate.author.id === world.discord.bot.id && candidate.revisions.length >= 3),
    { timeoutMs: 15_000 },
  );
  return { ...sent, message };
}

function turnsOf(...turns: DiscordTurn[]) {
  return {
    turns: turns.map((turn) => turn.outcome),
    duplicateReplies: turns.reduce((sum, turn) => sum + turn.duplicates, 0),
  };
}

export const processScenarios: Scenario[] = [
  {
    id: 'process-kill-9-discord',
    area: 'process',
    fault: 'kill -9 while a Discord reply streams, then a restart',
    expected:
      'the next start finishes the message: its text, "interrupted" note, Regenerate; history marks it',
    expectedOutcome: 'clear error',
    isInShortRun: true,
    async run(context) {
      const world = await ownDiscordWorld(context);
      const channelId = world.newChannel();
      const { marker, questionId, message } = await startStreaming(world, channelId);
      world.bot.kill('SIGKILL');
      await world.bot.exited;
      const shownAtDeath = world.discord.message(message.id)?.content ?? '';
      const bot = await world.restart();
      const hasRecovered = await bot
        .waitForLog((line) => line.msg === recoveredLog, 20_000)
        .then(
          () => true,
          () => false,
        );
      const turn = await observeDiscordTurn({ world, channelId, questionId, marker });
      const finished = world.discord.message(message.id);
      const assistant = turn.history?.find((stored) => stored.role === 'assistant');
      const next = await askOnDiscord({ world, channelId, text: 'are you back?' });
      return {
        checks: [
          { name: 'the restart finishes orphaned replies', isMet: hasRecovered },
          {
            name: 'the message keeps what it showed, with the note',
            isMet:
              finished?.content.startsWith(shownAtDeath.trimEnd()) === true &&
              interruptedNote.test(finished.content),
          },
          {
            name: 'Stop gave way to Regenerate',
            isMet:
              finished !== undefined &&
              buttonLabels(finished).includes('Regenerate') &&
              !buttonLabels(finished).includes('Stop'),
          },
          { name: 'history marks the turn interrupted', isMet: assistant?.isInterrupted === true },
          { name: 'the next mention is answered', isMet: next.outcome.fate === 'answered' },
        ],
        observed: `after restart: "…${quote({ text: (finished?.content ?? '').slice(-70), maxLength: 70 })}" · buttons ${finished ? buttonLabels(finished).join(', ') : 'none'} · ${describeHistory(turn.history)} · next ${next.outcome.fate}`,
        ...turnsOf(turn, next),
      };
    },
  },
  {
    id: 'process-kill-9-slack',
    area: 'process',
    fault: 'kill -9 while a Slack reply streams natively, then a restart',
    expected: 'the next start finishes the message with its text and the note; history marks it',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const world = context.own(await startSlackWorld());
      const channel = world.newChannel();
      world.gateway.enqueue(slowReply);
      const mention = slackMention({ channel, marker: newTurnMarker({ replyLength: 2000 }) });
      const delivery = await world.slack.deliverEvent({ event: mention.event, eventId: mention.eventId });
      await world.slack.waitFor(
        () => world.slack.streams.find((stream) => stream.channel === channel && stream.writes.length >= 3),
        15_000,
      );
      world.bot.kill('SIGKILL');
      await world.bot.exited;
      const bot = await world.restart();
      const hasRecovered = await bot
        .waitForLog((line) => line.msg === recoveredLog, 20_000)
        .then(
          () => true,
          () => false,
        );
      const turn = await observeSlackTurn({
        world,
        channel,
        threadTs: mention.threadTs,
        marker: mention.marker,
        deliveryStatus: delivery.status,
      });
      const assistant = turn.history?.find((stored) => stored.role === 'assistant');
      return {
        checks: [
          { name: 'the restart finishes orphaned replies', isMet: hasRecovered },
          { name: 'the message ends with the note', isMet: interruptedNote.test(turn.shown.text) },
          {
            name: 'Regenerate is there, Stop is not',
            isMet: turn.shown.buttons.includes('Regenerate') && !turn.shown.buttons.includes('Stop'),
          },
          { name: 'history marks the turn interrupted', isMet: assistant?.isInterrupted === true },
        ],
        observed: `after restart: "…${quote({ text: turn.shown.text.slice(-70), maxLength: 70 })}" · buttons ${turn.shown.buttons.join(', ') || 'none'} · ${describeHistory(turn.history)}`,
        turns: [turn.outcome],
        duplicateReplies: turn.duplicates,
      };
    },
  },
  {
    id: 'process-kill-9-imagine',
    area: 'process',
    fault: 'kill -9 while /imagine is drawing, then a restart',
    expected: 'the progress message says it stopped and to run the command again',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const world = await ownDiscordWorld(context);
      const channelId = world.newChannel();
      world.gateway.enqueue({ endpoint: 'images', latencyMs: 30_000 });
      const interactionId = world.discord.sendSlashCommand({
        name: 'imagine',
        channelId,
        options: { prompt: 'a slow fox' },
      });
      const progress = await world.discord.waitFor(
        () => {
          const originalId = world.discord.interaction(interactionId)?.originalMessageId;
          const original = originalId ? world.discord.message(originalId) : undefined;
          return original?.content.startsWith('🎨') ? original : undefined;
        },
        { timeoutMs: 15_000 },
      );
      // The journal record is written as the progress line goes out; let it land.
      await new Promise((resolve) => setTimeout(resolve, 300));
      world.bot.kill('SIGKILL');
      await world.bot.exited;
      const bot = await world.restart();
      const hasRecovered = await bot
        .waitForLog((line) => line.msg === recoveredLog, 20_000)
        .then(
          () => true,
          () => false,
        );
      const content = world.discord.message(progress.id)?.content ?? '';
      const isTold = /stopped.*run the command again/s.test(content);
      return {
        checks: [
          { name: 'the restart finishes orphaned replies', isMet: hasRecovered },
          { name: 'the progress message says it stopped', isMet: isTold },
        ],
        observed: `progress message now: "${quote({ text: content, maxLength: 110 })}"`,
        turns: [
          isTold
            ? { fate: 'told', detail: 'said it stopped' }
            : { fate: 'lost', detail: `left as "${quote({ text: content })}"` },
        ],
        duplicateReplies: 0,
      };
    },
  },
  {
    id: 'process-sigterm-mid-stream',
    area: 'process',
    fault: 'SIGTERM while a reply streams',
    expected: 'exits 0 within SHUTDOWN_GRACE_MS; the reply keeps its text with a note; no Stop left',
    expectedOutcome: 'clear error',
    isInShortRun: false,
    async run(context) {
      const world = await ownDiscordWorld(context, { SHUTDOWN_GRACE_MS: '8000' });
      const channelId = world.newChannel();
      const { marker, questionId } = await startStreaming(world, channelId);
      const signalledAtMs = Date.now();
      world.bot.kill('SIGTERM');
      const ended = await world.bot.exited;
      const seconds = (Date.now() - signalledAtMs) / 1000;
      const turn = await observeDiscordTurn({ world, channelId, questionId, marker, timeoutMs: 5_000 });
      await world.restart();
      const next = await askOnDiscord({ world, channelId, text: 'back?' });
      return {
        checks: [
          { name: 'exits with code 0', isMet: ended.code === 0 },
          { name: 'within SHUTDOWN_GRACE_MS', isMet: seconds <= 8.5 },
          {
            name: 'the reply keeps its text and says it stopped',
            isMet: turn.shown.text.startsWith(marker.head) && turn.shown.text.includes('⚠'),
          },
          { name: 'no Stop button is left', isMet: !turn.shown.buttons.includes('Stop') },
          { name: 'after a restart the next mention is answered', isMet: next.outcome.fate === 'answered' },
        ],
        observed: `exit ${ended.code} after ${seconds.toFixed(1)} s · reply ends "…${quote({ text: turn.shown.text.slice(-60), maxLength: 60 })}" · buttons ${turn.shown.buttons.join(', ') || 'none'} · ${describeHistory(turn.history)}`,
        ...turnsOf(turn, next),
      };
    },
  },
  {
    id: 'process-sigterm-discord-gone',
    area: 'process',
    fault: 'SIGTERM after the Discord connection was lost',
    expected: 'exits within SHUTDOWN_GRACE_MS anyway',
    expectedOutcome: 'survived',
    isInShortRun: true,
    async run(context) {
      const world = await ownDiscordWorld(context, { SHUTDOWN_GRACE_MS: '4000' });
      await world.discord.close();
      const isReconnecting = await eventually({
        isDone: () => world.discord.identifiedSessionCount === 0,
        timeoutMs: 2_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      const signalledAtMs = Date.now();
      world.bot.kill('SIGTERM');
      const ended = await world.bot.exited;
      const seconds = (Date.now() - signalledAtMs) / 1000;
      return {
        checks: [
          { name: 'the connection was gone', isMet: isReconnecting },
          { name: 'the process ends by itself', isMet: ended.signal === null },
          { name: 'within SHUTDOWN_GRACE_MS (4 s) and a little', isMet: seconds <= 5 },
        ],
        observed: `exit ${ended.code} after ${seconds.toFixed(1)} s`,
        turns: [],
        duplicateReplies: 0,
      };
    },
  },
];

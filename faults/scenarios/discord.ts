import { serviceUnavailable } from '../../test/support/fault-proxy.ts';
import { eventually } from '../discord-observations.ts';
import { askOnDiscord, type DiscordTurn, observeDiscordTurn, sendDiscordMention } from '../discord-turns.ts';
import { type DiscordWorld, startDiscordWorld } from '../discord-world.ts';
import type { Scenario, ScenarioContext, ScenarioObservation } from '../scenario.ts';
import { describeHistory } from '../store-observations.ts';
import { quote } from '../turn-judgement.ts';
import { newTurnMarker } from '../turn-markers.ts';

/** Discord faults: the fake's own 429s and WebSocket drops, and a proxy in front of REST for 503s. */
const discordWorld = (context: ScenarioContext): Promise<DiscordWorld> =>
  context.shared('discord', () => startDiscordWorld());
const discordRestWorld = (context: ScenarioContext): Promise<DiscordWorld> =>
  context.shared('discord-rest', () => startDiscordWorld({ hasRestProxy: true }));

/** A reply long and slow enough to need several edits (about 3 s of streaming). */
const slowReply = { chunkSize: 30, delayBetweenChunksMs: 60 };

function observationOf({
  turns,
  checks,
  observed,
}: {
  turns: DiscordTurn[];
  checks: ScenarioObservation['checks'];
  observed: string;
}): ScenarioObservation {
  return {
    checks,
    observed,
    turns: turns.map((turn) => turn.outcome),
    duplicateReplies: turns.reduce((sum, turn) => sum + turn.duplicates, 0),
  };
}

function answeredObservation(turn: DiscordTurn, detail: string, checks: ScenarioObservation['checks']) {
  return observationOf({
    turns: [turn],
    checks: [
      ...checks,
      {
        name: 'the exact reply is shown once and stored',
        isMet: turn.outcome.fate === 'answered' && turn.duplicates === 0,
      },
      {
        name: 'its Regenerate button is there, Stop is gone',
        isMet: turn.shown.buttons.includes('Regenerate'),
      },
    ],
    observed: `${detail} · ${turn.outcome.fate}: ${turn.shown.messageCount} message(s), buttons ${turn.shown.buttons.join(', ') || 'none'} · ${describeHistory(turn.history)}`,
  });
}

/** Whether a REST call is an edit of a message in `channelId` that carries `text`. */
function isEditIn(channelId: string, text: string) {
  return (request: { method: string; path: string; bodyText: string }) =>
    request.method === 'PATCH' &&
    request.path.includes(`/channels/${channelId}/messages/`) &&
    request.bodyText.includes(text);
}

export const discordScenarios: Scenario[] = [
  {
    id: 'discord-429-route',
    area: 'discord',
    fault: 'Discord answers 429 (route) to 2 edits of a streaming reply',
    expected: 'waits as told; the exact reply',
    expectedOutcome: 'survived',
    isInShortRun: false,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      const before = world.discord.rateLimitHits.forced;
      world.discord.forceRateLimit({ route: 'message-edit', count: 2, retryAfterMs: 1_500 });
      world.gateway.enqueue(slowReply);
      const turn = await askOnDiscord({ world, channelId, marker: newTurnMarker({ replyLength: 1500 }) });
      const hits = world.discord.rateLimitHits.forced - before;
      return answeredObservation(turn, `${hits} × 429 served`, [
        { name: 'the 429s were served', isMet: hits === 2 },
      ]);
    },
  },
  {
    id: 'discord-429-global',
    area: 'discord',
    fault: 'Discord answers a global 429 to the first post of a reply',
    expected: 'waits as told; the exact reply',
    expectedOutcome: 'survived',
    isInShortRun: true,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      const before = world.discord.rateLimitHits.forced;
      world.discord.forceRateLimit({
        route: 'message-create',
        count: 1,
        retryAfterMs: 1_000,
        isGlobal: true,
      });
      const turn = await askOnDiscord({ world, channelId });
      const hits = world.discord.rateLimitHits.forced - before;
      return answeredObservation(turn, `${hits} × global 429 served`, [
        { name: 'the 429 was served', isMet: hits === 1 },
      ]);
    },
  },
  {
    id: 'discord-503-final-edit',
    area: 'discord',
    fault: '10 × 503 on the final edit of a reply',
    expected: 'retried until it lands: the exact final text, Regenerate under it',
    expectedOutcome: 'survived',
    isInShortRun: true,
    async run(context) {
      const world = await discordRestWorld(context);
      const channelId = world.newChannel();
      const marker = newTurnMarker({ replyLength: 900 });
      const burst = 10;
      const rule = world.restProxy?.inject({
        matches: isEditIn(channelId, marker.replyText.slice(-40)),
        fault: serviceUnavailable(),
        count: burst,
      });
      const turn = await askOnDiscord({ world, channelId, marker, timeoutMs: 60_000 });
      const injected = burst - (rule?.count ?? burst);
      if (rule !== undefined) rule.count = 0;
      return answeredObservation(turn, `${injected} × 503 on the final edit`, [
        { name: 'the 503s were injected', isMet: injected === burst },
      ]);
    },
  },
  {
    id: 'discord-503-buttons',
    area: 'discord',
    fault: '10 × 503 on the edit that swaps Stop for Regenerate',
    expected: 'retried until it lands: no Stop left under a finished reply',
    expectedOutcome: 'survived',
    isInShortRun: false,
    async run(context) {
      const world = await discordRestWorld(context);
      const channelId = world.newChannel();
      const burst = 10;
      const rule = world.restProxy?.inject({
        matches: isEditIn(channelId, 'Regenerate'),
        fault: serviceUnavailable(),
        count: burst,
      });
      const turn = await askOnDiscord({ world, channelId, timeoutMs: 60_000 });
      const injected = burst - (rule?.count ?? burst);
      if (rule !== undefined) rule.count = 0;
      return answeredObservation(turn, `${injected} × 503 on the buttons' edit`, [
        { name: 'the 503s were injected', isMet: injected === burst },
      ]);
    },
  },
  {
    id: 'discord-503-outage',
    area: 'discord',
    fault: 'Discord REST answers 503 to everything for 4 s, mid-stream',
    expected: 'the exact reply once Discord is back',
    expectedOutcome: 'survived',
    isInShortRun: false,
    async run(context) {
      const world = await discordRestWorld(context);
      const channelId = world.newChannel();
      world.gateway.enqueue(slowReply);
      const { marker, questionId } = sendDiscordMention({
        world,
        channelId,
        marker: newTurnMarker({ replyLength: 1500 }),
      });
      await world.discord.waitFor(() =>
        world.discord.messages(channelId).find((message) => message.author.id === world.discord.bot.id),
      );
      const outageEndsAtMs = Date.now() + 4_000;
      const rule = world.restProxy?.inject({
        matches: () => Date.now() < outageEndsAtMs,
        fault: serviceUnavailable(),
        count: Number.MAX_SAFE_INTEGER,
      });
      const turn = await observeDiscordTurn({ world, channelId, questionId, marker, timeoutMs: 60_000 });
      const injected = Number.MAX_SAFE_INTEGER - (rule?.count ?? Number.MAX_SAFE_INTEGER);
      if (rule !== undefined) rule.count = 0;
      return answeredObservation(turn, `${injected} × 503 during the outage`, [
        { name: 'the outage hit some calls', isMet: injected > 0 },
      ]);
    },
  },
  {
    id: 'discord-websocket-resume',
    area: 'discord',
    fault: 'gateway WebSocket closed (4000); a mention arrives before the resume',
    expected: 'resumes; the mention is answered once',
    expectedOutcome: 'survived',
    isInShortRun: true,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      world.discord.disconnectGateway(4000);
      const turn = await askOnDiscord({ world, channelId, timeoutMs: 30_000 });
      const isBack = await eventually({
        isDone: () => world.discord.identifiedSessionCount === 1,
        timeoutMs: 10_000,
      });
      const next = await askOnDiscord({ world, channelId, text: 'still there?' });
      return observationOf({
        turns: [turn, next],
        checks: [
          { name: 'the session is back', isMet: isBack },
          {
            name: 'the mention sent meanwhile is answered once',
            isMet: turn.outcome.fate === 'answered' && turn.duplicates === 0,
          },
          { name: 'the next mention is answered', isMet: next.outcome.fate === 'answered' },
        ],
        observed: `mention during the drop ${turn.outcome.fate} (${turn.shown.messageCount} message) · next ${next.outcome.fate} · ${describeHistory(next.history)}`,
      });
    },
  },
  {
    id: 'discord-websocket-drop-mid-stream',
    area: 'discord',
    fault: 'gateway WebSocket closed while a reply streams',
    expected: 'the reply finishes exactly; the next mention is answered',
    expectedOutcome: 'survived',
    isInShortRun: false,
    async run(context) {
      const world = await discordWorld(context);
      const channelId = world.newChannel();
      world.gateway.enqueue(slowReply);
      const { marker, questionId } = sendDiscordMention({
        world,
        channelId,
        marker: newTurnMarker({ replyLength: 1500 }),
      });
      await world.discord.waitFor(() =>
        world.discord.messages(channelId).find((message) => message.author.id === world.discord.bot.id),
      );
      world.discord.disconnectGateway(4000);
      const turn = await observeDiscordTurn({ world, channelId, questionId, marker });
      const next = await askOnDiscord({ world, channelId, text: 'and after the drop?', timeoutMs: 30_000 });
      return observationOf({
        turns: [turn, next],
        checks: [
          { name: 'the streaming reply finishes exactly', isMet: turn.outcome.fate === 'answered' },
          { name: 'the next mention is answered', isMet: next.outcome.fate === 'answered' },
        ],
        observed: `reply ${turn.outcome.fate} ("${quote({ text: turn.shown.text, maxLength: 40 })}") · next ${next.outcome.fate} · ${describeHistory(next.history)}`,
      });
    },
  },
  {
    id: 'discord-503-upload',
    area: 'discord',
    fault: '10 × 503 on the upload of a drawn image',
    expected: 'retried until it lands: the image posted once; no log line carries the file',
    expectedOutcome: 'survived',
    isInShortRun: false,
    async run(context) {
      const world = await discordRestWorld(context);
      const channelId = world.newChannel();
      const logStart = world.bot.output().length;
      const burst = 10;
      const rule = world.restProxy?.inject({
        matches: (request) => request.bodyText.includes('filename='),
        fault: serviceUnavailable(),
        count: burst,
      });
      const interactionId = world.discord.sendSlashCommand({
        name: 'imagine',
        channelId,
        options: { prompt: 'a lighthouse' },
      });
      const original = () => {
        const originalId = world.discord.interaction(interactionId)?.originalMessageId;
        return originalId ? world.discord.message(originalId) : undefined;
      };
      const isPosted = await eventually({
        isDone: () => (original()?.attachments.length ?? 0) > 0,
        timeoutMs: 60_000,
      });
      const injected = burst - (rule?.count ?? burst);
      if (rule !== undefined) rule.count = 0;
      const imageMessages = world.discord
        .messages(channelId)
        .filter((message) => message.author.id === world.discord.bot.id && message.attachments.length > 0);
      const logLines = world.bot.output().slice(logStart).split('\n');
      const longestLine = Math.max(...logLines.map((line) => line.length));
      const carriesImage = logLines.some((line) => line.includes('IHDR') || line.includes('iVBORw0KGgo'));
      return {
        checks: [
          { name: `${burst} uploads were refused`, isMet: injected === burst },
          {
            name: 'the image is posted, once, in place of the progress line',
            isMet: isPosted && imageMessages.length === 1,
          },
          { name: 'no log line over 32 KB', isMet: longestLine <= 32 * 1024 },
          { name: 'no log line carries the image', isMet: !carriesImage },
        ],
        observed: `${injected} × 503 · ${imageMessages.length} message(s) with the image · "${quote({ text: original()?.content ?? '', maxLength: 50 })}" · longest log line ${longestLine} characters`,
        turns: [
          isPosted
            ? { fate: 'answered', detail: 'posted' }
            : { fate: 'lost', detail: `left as "${quote({ text: original()?.content ?? '' })}"` },
        ],
        duplicateReplies: Math.max(0, imageMessages.length - 1),
      };
    },
  },
];

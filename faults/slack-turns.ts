import type { StoredTurn } from '../src/conversation/turn.ts';
import { appMention, type SlackFile } from '../test/fakes/slack/index.ts';
import type { TurnOutcome } from './scenario.ts';
import { botMessagesInThread, slackMessageText, waitForSlackAnswer } from './slack-observations.ts';
import type { SlackWorld } from './slack-world.ts';
import { readHistory } from './store-observations.ts';
import { duplicatesOf, judgeTurn, type ShownReply } from './turn-judgement.ts';
import { newTurnMarker, type TurnMarker } from './turn-markers.ts';

/** One thing a person asked on Slack (a mention, answered in a thread under it), and what was observed. */
export interface SlackTurn {
  readonly marker: TurnMarker;
  readonly channel: string;
  readonly threadTs: string;
  /** What the bot's HTTP endpoint answered the delivery with. */
  readonly deliveryStatus: number;
  readonly shown: ShownReply;
  readonly history: StoredTurn[] | undefined;
  readonly outcome: TurnOutcome;
  readonly duplicates: number;
}

/** A mention event with a fresh marker, ready to deliver (once, or again as Slack's retry). */
export function slackMention({
  channel,
  text = 'hello there',
  marker = newTurnMarker(),
  files,
}: {
  channel: string;
  text?: string;
  marker?: TurnMarker;
  files?: SlackFile[];
}) {
  const event = appMention({
    channel,
    text: `${text} ${marker.marker}`,
    ...(files === undefined ? {} : { files }),
  });
  return { event, marker, threadTs: String(event.ts), eventId: `Ev${String(event.ts).replace('.', '')}` };
}

/** Waits for the answer in the mention's thread, reads the history and judges the turn. */
export async function observeSlackTurn({
  world,
  channel,
  threadTs,
  marker,
  deliveryStatus,
  timeoutMs,
}: {
  world: SlackWorld;
  channel: string;
  threadTs: string;
  marker: TurnMarker;
  deliveryStatus: number;
  timeoutMs?: number;
}): Promise<SlackTurn> {
  const shown = await waitForSlackAnswer({
    slack: world.slack,
    channel,
    threadTs,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  const history = await readHistory({
    storeUrl: world.storeUrl,
    conversationKey: world.conversationKey(channel, threadTs),
  });
  const texts = botMessagesInThread({ slack: world.slack, channel, threadTs }).map(slackMessageText);
  return {
    marker,
    channel,
    threadTs,
    deliveryStatus,
    shown,
    history,
    outcome: judgeTurn({ marker, shown, history }),
    duplicates: duplicatesOf({ shownTexts: texts, marker }),
  };
}

/** Mentions the bot in a channel and observes the answer in the thread. */
export async function askOnSlack({
  world,
  channel,
  text,
  marker,
  files,
  timeoutMs,
}: {
  world: SlackWorld;
  channel: string;
  text?: string;
  marker?: TurnMarker;
  files?: SlackFile[];
  timeoutMs?: number;
}): Promise<SlackTurn> {
  const mention = slackMention({
    channel,
    ...(text === undefined ? {} : { text }),
    ...(marker === undefined ? {} : { marker }),
    ...(files === undefined ? {} : { files }),
  });
  const delivery = await world.slack.deliverEvent({ event: mention.event, eventId: mention.eventId });
  return observeSlackTurn({
    world,
    channel,
    threadTs: mention.threadTs,
    marker: mention.marker,
    deliveryStatus: delivery.status,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

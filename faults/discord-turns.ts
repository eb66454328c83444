import type { StoredTurn } from '../src/conversation/turn.ts';
import type { FakeFile } from '../test/fakes/discord/index.ts';
import { waitForDiscordAnswer } from './discord-observations.ts';
import type { DiscordWorld } from './discord-world.ts';
import type { TurnOutcome } from './scenario.ts';
import { readHistory } from './store-observations.ts';
import { duplicatesOf, judgeTurn, type ShownReply } from './turn-judgement.ts';
import { newTurnMarker, type TurnMarker } from './turn-markers.ts';

/** One thing a person asked on Discord, and everything observed about it. */
export interface DiscordTurn {
  readonly marker: TurnMarker;
  readonly channelId: string;
  readonly questionId: string;
  readonly shown: ShownReply;
  readonly history: StoredTurn[] | undefined;
  readonly outcome: TurnOutcome;
  readonly duplicates: number;
}

/** Sends a mention with a fresh marker; the caller waits for the answer with `observeDiscordTurn`. */
export function sendDiscordMention({
  world,
  channelId,
  text = 'hello there',
  marker = newTurnMarker(),
  attachments,
}: {
  world: DiscordWorld;
  channelId: string;
  text?: string;
  marker?: TurnMarker;
  attachments?: FakeFile[];
}): { marker: TurnMarker; questionId: string } {
  const questionId = world.discord.sendUserMessage({
    channelId,
    content: `${text} ${marker.marker}`,
    mentionsBot: true,
    ...(attachments === undefined ? {} : { attachments }),
  });
  return { marker, questionId };
}

/** Waits for the answer to a question, reads the conversation's history, and judges the turn. */
export async function observeDiscordTurn({
  world,
  channelId,
  questionId,
  marker,
  timeoutMs,
  toldPattern,
}: {
  world: DiscordWorld;
  channelId: string;
  questionId: string;
  marker: TurnMarker;
  timeoutMs?: number;
  /** What counts as telling the person, when not the usual warning sign. */
  toldPattern?: RegExp;
}): Promise<DiscordTurn> {
  const shown = await waitForDiscordAnswer({
    discord: world.discord,
    channelId,
    questionId,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  const history = await readHistory({
    storeUrl: world.storeUrl,
    conversationKey: world.conversationKey(channelId),
  });
  const messages = world.discord
    .messages(channelId)
    .filter((message) => message.author.id === world.discord.bot.id);
  return {
    marker,
    channelId,
    questionId,
    shown,
    history,
    outcome: judgeTurn({ marker, shown, history, ...(toldPattern === undefined ? {} : { toldPattern }) }),
    duplicates: duplicatesOf({ shownTexts: messages.map((message) => message.content), marker }),
  };
}

/** Asks and observes in one go. */
export async function askOnDiscord(options: {
  world: DiscordWorld;
  channelId: string;
  text?: string;
  marker?: TurnMarker;
  attachments?: FakeFile[];
  timeoutMs?: number;
  toldPattern?: RegExp;
}): Promise<DiscordTurn> {
  const { marker, questionId } = sendDiscordMention(options);
  return observeDiscordTurn({
    world: options.world,
    channelId: options.channelId,
    questionId,
    marker,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.toldPattern === undefined ? {} : { toldPattern: options.toldPattern }),
  });
}

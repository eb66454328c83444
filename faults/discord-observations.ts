import { setTimeout as delay } from 'node:timers/promises';
import type { FakeDiscord, FakeMessage } from '../test/fakes/discord/index.ts';
import type { ShownReply } from './turn-judgement.ts';

/** How long a reply must stay unchanged, without a Stop button, to count as finished. */
const quietMs = 1_000;
const pollMs = 100;

/** The bot's messages in a channel after a given message (the question), oldest first. */
export function botMessagesAfter({
  discord,
  channelId,
  afterMessageId,
}: {
  discord: FakeDiscord;
  channelId: string;
  afterMessageId: string;
}): FakeMessage[] {
  const messages = discord.messages(channelId);
  const questionIndex = messages.findIndex((message) => message.id === afterMessageId);
  return messages.slice(questionIndex + 1).filter((message) => message.author.id === discord.bot.id);
}

/** The labels of a message's buttons. */
export function buttonLabels(message: FakeMessage): string[] {
  return [...JSON.stringify(message.components).matchAll(/"label":"([^"]*)"/g)].map(
    (match) => match[1] ?? '',
  );
}

/** What the bot showed after a question, as it stands now. */
export function shownAfter({
  discord,
  channelId,
  afterMessageId,
}: {
  discord: FakeDiscord;
  channelId: string;
  afterMessageId: string;
}): ShownReply {
  const messages = botMessagesAfter({ discord, channelId, afterMessageId });
  const revisions = messages.flatMap((message) => message.revisions);
  const firstAt = (isWanted: (text: string) => boolean) =>
    revisions
      .filter((revision) => isWanted(revision.content))
      .reduce<number | undefined>(
        (earliest, revision) => Math.min(earliest ?? revision.atMs, revision.atMs),
        undefined,
      );
  return {
    text: messages.map((message) => message.content).join('\n'),
    messageCount: messages.length,
    buttons: messages.flatMap(buttonLabels),
    revisions: revisions.map((revision) => revision.content),
    isSettled: false,
    firstTextAtMs: firstAt((text) => text.trim() !== ''),
    firstWarningAtMs: firstAt((text) => text.includes('⚠')),
  };
}

/**
 * Waits until the bot's answer to a question has settled: some message is there, none has a Stop
 * button, and nothing changed for a moment. Resolves with what is shown either way, `isSettled`
 * false when it never settled within `timeoutMs` (silence counts as an observation, not an error).
 */
export async function waitForDiscordAnswer({
  discord,
  channelId,
  questionId,
  timeoutMs = 20_000,
  minimumMessages = 1,
}: {
  discord: FakeDiscord;
  channelId: string;
  questionId: string;
  timeoutMs?: number;
  minimumMessages?: number;
}): Promise<ShownReply> {
  const deadlineMs = Date.now() + timeoutMs;
  let lastSignature = '';
  let unchangedSinceMs = Date.now();
  while (Date.now() < deadlineMs) {
    const messages = botMessagesAfter({ discord, channelId, afterMessageId: questionId });
    const signature = JSON.stringify(messages.map((message) => [message.content, message.components]));
    if (signature !== lastSignature) {
      lastSignature = signature;
      unchangedSinceMs = Date.now();
    }
    const hasStop = messages.some((message) => buttonLabels(message).includes('Stop'));
    if (messages.length >= minimumMessages && !hasStop && Date.now() - unchangedSinceMs >= quietMs) {
      return { ...shownAfter({ discord, channelId, afterMessageId: questionId }), isSettled: true };
    }
    await delay(pollMs);
  }
  return shownAfter({ discord, channelId, afterMessageId: questionId });
}

/** Waits until `isDone` is true, polling; resolves false after `timeoutMs`. */
export async function eventually({
  isDone,
  timeoutMs,
}: {
  isDone: () => boolean;
  timeoutMs: number;
}): Promise<boolean> {
  const deadlineMs = Date.now() + timeoutMs;
  while (Date.now() < deadlineMs) {
    if (isDone()) return true;
    await delay(pollMs);
  }
  return isDone();
}

import type { FakeSlack, StoredMessage } from '../test/fakes/slack/index.ts';
import { eventually } from './discord-observations.ts';
import type { ShownReply } from './turn-judgement.ts';

const quietMs = 1_000;

/** The bot's messages in a thread, oldest first. */
export function botMessagesInThread({
  slack,
  channel,
  threadTs,
}: {
  slack: FakeSlack;
  channel: string;
  threadTs: string;
}): StoredMessage[] {
  return slack.messages(channel, threadTs).filter((message) => message.botId !== undefined);
}

/** What a person reads in a message: its Markdown and section blocks, or its plain text. */
export function slackMessageText(message: StoredMessage): string {
  const texts = (message.blocks ?? []).flatMap((block) => {
    const typed = block as { type?: string; text?: unknown };
    if (typed.type === 'markdown' && typeof typed.text === 'string') return [typed.text];
    if (typeof typed.text === 'object' && typed.text !== null && 'text' in typed.text) {
      return [String((typed.text as { text: unknown }).text)];
    }
    return [];
  });
  // parley puts an invisible word joiner after the "<" of a mention it must not let ping; a person
  // reads the text without it.
  return (texts.length > 0 ? texts.join('\n') : message.text).replaceAll('\u2060', '');
}

/** The labels of a message's buttons. */
export function slackButtonLabels(message: StoredMessage): string[] {
  return (message.blocks ?? []).flatMap((block) => {
    const typed = block as { type?: string; elements?: Array<{ text?: { text?: string } }> };
    return typed.type === 'actions' ? (typed.elements ?? []).map((element) => element.text?.text ?? '') : [];
  });
}

function shownInThread(slack: FakeSlack, channel: string, threadTs: string, isSettled: boolean): ShownReply {
  const messages = botMessagesInThread({ slack, channel, threadTs });
  return {
    text: messages.map(slackMessageText).join('\n'),
    messageCount: messages.length,
    buttons: messages.flatMap(slackButtonLabels),
    revisions: messages.map(slackMessageText),
    isSettled,
    firstTextAtMs: messages.reduce<number | undefined>(
      (earliest, message) => Math.min(earliest ?? message.postedAtMs, message.postedAtMs),
      undefined,
    ),
    firstWarningAtMs: undefined,
  };
}

/**
 * Waits until the bot's answer in a thread has settled: a message is there, no stream is still open,
 * no Stop button is left, and nothing changed for a moment.
 */
export async function waitForSlackAnswer({
  slack,
  channel,
  threadTs,
  timeoutMs = 20_000,
}: {
  slack: FakeSlack;
  channel: string;
  threadTs: string;
  timeoutMs?: number;
}): Promise<ShownReply> {
  let lastSignature = '';
  let unchangedSinceMs = Date.now();
  const isSettled = await eventually({
    isDone: () => {
      const messages = botMessagesInThread({ slack, channel, threadTs });
      const signature = JSON.stringify(
        messages.map((message) => [message.text, message.blocks, message.streamingState]),
      );
      if (signature !== lastSignature) {
        lastSignature = signature;
        unchangedSinceMs = Date.now();
      }
      const isOpen = messages.some(
        (message) => message.streamingState === 'in_progress' || slackButtonLabels(message).includes('Stop'),
      );
      return messages.length > 0 && !isOpen && Date.now() - unchangedSinceMs >= quietMs;
    },
    timeoutMs,
  });
  return shownInThread(slack, channel, threadTs, isSettled);
}

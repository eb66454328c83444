/**
 * The load every contender meets, as issue 6 describes it: one mention in each of N channels, each
 * answered by a stream of about 300 tokens at a steady 50 tokens/s after 400 ms to the first token.
 * A token is `charactersPerToken` characters, the size of an average English token.
 */
export const loadProfile = {
  tokensPerReply: 300,
  tokensPerSecond: 50,
  timeToFirstTokenMs: 400,
  charactersPerToken: 4,
} as const;

/**
 * How the fake gateway streams: `tokensPerChunk` tokens in each SSE event (1 by default, as many
 * models stream), one event every `intervalMs` so the rate stays `tokensPerSecond`, the first event
 * sent `latencyMs` after the request so the first content chunk leaves at `timeToFirstTokenMs`.
 */
export function streamShapeOf(tokensPerChunk: number): {
  charactersPerChunk: number;
  intervalMs: number;
  latencyMs: number;
} {
  const intervalMs = (1000 * tokensPerChunk) / loadProfile.tokensPerSecond;
  return {
    charactersPerChunk: loadProfile.charactersPerToken * tokensPerChunk,
    intervalMs,
    latencyMs: loadProfile.timeToFirstTokenMs - intervalMs,
  };
}

const markerPattern = /bench-conversation-(\d+)/;

/** What the person writes in conversation `index`; the marker lets the gateway request be matched to it. */
export function mentionTextOf(index: number): string {
  return `bench-conversation-${index} please explain how rate limits shape a chat bot`;
}

/** The conversation a text belongs to, from its marker; `undefined` when it carries none. */
export function conversationIndexIn(text: string): number | undefined {
  const match = markerPattern.exec(text);
  return match === null ? undefined : Number(match[1]);
}

const words = [
  'stream',
  'edit',
  'budget',
  'model',
  'token',
  'channel',
  'reply',
  'window',
  'queue',
  'limit',
  'person',
  'text',
  'delta',
  'final',
  'bucket',
  'fair',
];

/**
 * The reply of conversation `index`: plain prose of exactly `tokensPerReply × charactersPerToken`
 * characters that names its conversation, so a reply delivered to the wrong channel is caught. It
 * stays under Discord's 2,000 characters, so every contender answers in one message. With
 * `paragraphCharacters`, a sentence that ends past that many characters of its paragraph ends the
 * paragraph (a blank line), as a model's answers do: a bot that shows whole lines only (the Chat
 * SDK) shows nothing of one long paragraph until it ends.
 */
export function replyTextOf(
  index: number,
  { paragraphCharacters }: { paragraphCharacters?: number } = {},
): string {
  const length = loadProfile.tokensPerReply * loadProfile.charactersPerToken;
  let text = `Answer ${index}:`;
  let paragraphStart = 0;
  let wordIndex = index;
  while (text.length < length) {
    const word = words[wordIndex % words.length] ?? 'text';
    // A sentence break now and then, so the text looks like a reply and not one long word chain.
    const isSentenceEnd = wordIndex % 11 === 0;
    const separator = text.endsWith('\n') ? '' : ' ';
    text += isSentenceEnd ? `${separator}${word}.` : `${separator}${word}`;
    if (
      isSentenceEnd &&
      paragraphCharacters !== undefined &&
      text.length - paragraphStart >= paragraphCharacters &&
      text.length < length - paragraphCharacters / 2
    ) {
      text += '\n\n';
      paragraphStart = text.length;
    }
    wordIndex += 7;
  }
  // Exactly `length` characters, ending in a full stop like a real answer.
  const body = text
    .slice(0, length - 1)
    .trimEnd()
    .padEnd(length - 1, '.');
  return `${body}.`;
}

import { describe, expect, it } from 'vitest';
import { estimateTokens, fitToContext, toChatMessage } from '../../src/conversation/context-budget.ts';
import type { StoredTurn } from '../../src/conversation/turn.ts';

function turn(role: 'user' | 'assistant', text: string): StoredTurn {
  return {
    role,
    authorId: role,
    authorName: role === 'user' ? 'Ada' : 'parley',
    text,
    images: [],
    createdAt: new Date(0).toISOString(),
  };
}

function history(exchanges: number, textLength: number): StoredTurn[] {
  return Array.from({ length: exchanges }, (_, index) => [
    turn('user', `question ${index} ${'x'.repeat(textLength)}`),
    turn('assistant', `answer ${index} ${'y'.repeat(textLength)}`),
  ]).flat();
}

describe('fitToContext', () => {
  const newTurn = { role: 'user' as const, content: 'Ada: and now?' };

  it('keeps the whole history when it fits', () => {
    const fit = fitToContext({
      systemPrompt: 'be kind',
      history: history(3, 10),
      newTurn,
      contextTokens: 10_000,
      replyMaxTokens: 500,
    });
    expect(fit.droppedTurnCount).toBe(0);
    expect(fit.messages).toHaveLength(1 + 6 + 1);
    expect(fit.messages[0]).toEqual({ role: 'system', content: 'be kind' });
    expect(fit.messages.at(-1)).toBe(newTurn);
  });

  it('drops the oldest turns first and reports how many, never starting on a bot reply', () => {
    const turns = history(50, 400);
    const fit = fitToContext({
      systemPrompt: 'be kind',
      history: turns,
      newTurn,
      contextTokens: 4_000,
      replyMaxTokens: 1_000,
    });
    expect(fit.droppedTurnCount).toBeGreaterThan(0);
    expect(fit.messages[1]?.role).toBe('user');
    const keptCount = fit.messages.length - 2;
    expect(fit.droppedTurnCount).toBe(turns.length - keptCount);
    // What was kept is the newest part, in order.
    expect(fit.messages.at(-2)).toEqual(toChatMessage(turns.at(-1) as StoredTurn));
    const total = fit.messages.reduce((sum, message) => sum + estimateTokens(message), 0);
    expect(total + 1_000).toBeLessThanOrEqual(4_000);
  });

  it('says when the new turn alone cannot fit', () => {
    const huge = { role: 'user' as const, content: 'z'.repeat(40_000) };
    const fit = fitToContext({
      systemPrompt: 's',
      history: history(2, 5),
      newTurn: huge,
      contextTokens: 8_192,
      replyMaxTokens: 1_024,
    });
    expect(fit.isNewTurnTooLarge).toBe(true);
  });

  it('counts an image part as a fixed token cost', () => {
    const withImage = {
      role: 'user' as const,
      content: [
        { type: 'text' as const, text: 'hi' },
        { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    };
    expect(estimateTokens(withImage)).toBeGreaterThanOrEqual(1_000);
  });
});

describe('toChatMessage', () => {
  it('names the author of user turns and marks their images', () => {
    const stored = {
      ...turn('user', 'look'),
      images: [{ name: 'cat.png', mimeType: 'image/png', byteLength: 10 }],
    };
    expect(toChatMessage(stored)).toEqual({ role: 'user', content: 'Ada: look\n[image: cat.png]' });
    expect(toChatMessage(turn('assistant', 'a cat'))).toEqual({ role: 'assistant', content: 'a cat' });
  });
});

import { describe, expect, it } from 'vitest';
import { type MessagePiece, splitGrowingText, splitMessage } from '../../src/delivery/split-message.ts';
import { hasBalancedFences, isInsideWord, wordLengthAround } from './markdown-checks.ts';
import { createRandom, randomMarkdown } from './random-markdown.ts';

const texts = (pieces: readonly MessagePiece[]): string[] => pieces.map((piece) => piece.text);

describe('splitMessage', () => {
  it('keeps text that fits as one piece, unchanged', () => {
    expect(texts(splitMessage({ text: 'Hello **world**', maxLength: 2000 }))).toEqual(['Hello **world**']);
    expect(splitMessage({ text: '', maxLength: 2000 })).toEqual([]);
  });

  it('prefers a paragraph break, keeping the break at the end of the first piece', () => {
    const first = `${'alpha '.repeat(10)}end.`;
    const second = `${'beta\n'.repeat(3)}${'gamma '.repeat(5)}done`;
    const pieces = splitMessage({ text: `${first}\n\n${second}`, maxLength: 80 });
    expect(texts(pieces)).toEqual([`${first}\n\n`, second]);
  });

  it('prefers a line break to a space when no paragraph break is late enough', () => {
    const text = `${'one two three four five six\n'.repeat(3)}seven eight nine ten eleven`;
    const pieces = splitMessage({ text, maxLength: 90 });
    expect(pieces[0]?.text).toBe('one two three four five six\n'.repeat(3));
  });

  it('cuts at a space rather than inside a word', () => {
    const text = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor';
    const pieces = splitMessage({ text, maxLength: 30 });
    for (const piece of pieces) expect(piece.text.length).toBeLessThanOrEqual(30);
    expect(pieces.map((piece) => piece.body).join('')).toBe(text);
    for (const piece of pieces.slice(0, -1)) expect(piece.body).toMatch(/ $/);
  });

  it('hard-splits only a word longer than the limit', () => {
    const text = `short ${'x'.repeat(50)} tail`;
    const pieces = splitMessage({ text, maxLength: 20 });
    expect(texts(pieces)).toEqual(['short ', 'x'.repeat(20), 'x'.repeat(20), `${'x'.repeat(10)} tail`]);
  });

  it('does not split a surrogate pair when it must split a word', () => {
    const text = '😀'.repeat(30);
    const pieces = splitMessage({ text, maxLength: 21 });
    for (const piece of pieces) {
      expect(piece.text.length).toBeLessThanOrEqual(21);
      expect(piece.text).toMatch(/^(😀)+$/u);
    }
  });

  it('closes a code block at the cut and reopens it with its language', () => {
    const code = Array.from({ length: 12 }, (_, index) => `const value${index} = ${index};`).join('\n');
    const text = `Here is the code:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThat is all.`;
    const pieces = splitMessage({ text, maxLength: 120 });
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) {
      expect(piece.text.length).toBeLessThanOrEqual(120);
      expect(hasBalancedFences(piece.text)).toBe(true);
    }
    expect(pieces[0]?.closingFence).toBe('```');
    expect(pieces[1]?.reopeningFence).toBe('```ts\n');
    expect(pieces[1]?.text.startsWith('```ts\nconst value')).toBe(true);
    expect(pieces.map((piece) => piece.body).join('')).toBe(text);
  });

  it('adds a line break before the closing fence when the cut is inside a code line', () => {
    const text = `\`\`\`python\n${'word '.repeat(30)}end\n\`\`\``;
    const [first, second] = splitMessage({ text, maxLength: 60 });
    expect(first?.closingFence).toBe('\n```');
    expect(first?.text.endsWith(' \n```')).toBe(true);
    expect(second?.reopeningFence).toBe('```python\n');
  });

  it('does not leave an empty code block before or after a cut', () => {
    const text = `${'intro words here '.repeat(3)}\n\`\`\`ts\n${'let a = 1;\n'.repeat(6)}\`\`\`\n${'outro '.repeat(4)}`;
    for (let maxLength = 30; maxLength < 140; maxLength += 1) {
      for (const piece of splitMessage({ text, maxLength })) {
        expect(piece.text).not.toMatch(/```ts\n```/);
      }
    }
  });

  it('closes an unclosed block at the very end so the piece renders as code', () => {
    const pieces = splitMessage({ text: 'Look:\n```ts\nconst a = 1;\n', maxLength: 2000 });
    expect(texts(pieces)).toEqual(['Look:\n```ts\nconst a = 1;\n```']);
    expect(pieces[0]?.closingFence).toBe('```');
  });

  it('knows a code block opened before the start index', () => {
    const text = '```bash\necho one\necho two\n```\nafter';
    const pieces = splitMessage({ text, maxLength: 2000, startIndex: text.indexOf('echo two') });
    expect(texts(pieces)).toEqual(['```bash\necho two\n```\nafter']);
  });

  it('reopens tilde fences with the same marker', () => {
    const text = `~~~~json\n${'"key": "value",\n'.repeat(8)}~~~~\nok`;
    const pieces = splitMessage({ text, maxLength: 60 });
    expect(pieces[1]?.reopeningFence).toBe('~~~~json\n');
    expect(pieces[0]?.closingFence).toBe('~~~~');
  });

  it('does not treat inline triple backticks as a fence', () => {
    const text = `\`\`\`inline\`\`\` and then ${'words '.repeat(20)}end`;
    const pieces = splitMessage({ text, maxLength: 50 });
    for (const piece of pieces) expect(piece.reopeningFence + piece.closingFence).toBe('');
  });

  it('rejects a limit too small to hold a reopened code block', () => {
    expect(() => splitMessage({ text: 'hello', maxLength: 5 })).toThrow(RangeError);
  });

  it('keeps its invariants on many random replies', () => {
    for (let seed = 1; seed <= 400; seed += 1) {
      const random = createRandom(seed);
      const maxLength = 20 + Math.floor(random() * 400);
      const text = randomMarkdown({
        random,
        targetLength: Math.floor(random() * 3000),
        longWordLength: maxLength * 2,
        mayEndInCode: true,
      });
      const pieces = splitMessage({ text, maxLength });
      const context = `seed ${seed}, maxLength ${maxLength}`;
      expect(pieces.map((piece) => piece.body).join(''), context).toBe(text);
      for (const piece of pieces) {
        expect(piece.text.length, context).toBeLessThanOrEqual(maxLength);
        expect(piece.text, context).toBe(piece.reopeningFence + piece.body + piece.closingFence);
        expect(hasBalancedFences(piece.text), `${context}: ${JSON.stringify(piece.text)}`).toBe(true);
        if (piece.sourceStart > 0 && isInsideWord(text, piece.sourceStart)) {
          const available = maxLength - piece.reopeningFence.length - 8;
          expect(wordLengthAround(text, piece.sourceStart), context).toBeGreaterThan(available);
        }
      }
      for (const [index, piece] of pieces.entries()) {
        const previous = pieces[index - 1];
        if (previous !== undefined)
          expect(piece.reopeningFence !== '', context).toBe(previous.closingFence !== '');
      }
    }
  });
});

describe('splitGrowingText', () => {
  it('settles nothing while the text fits one message', () => {
    const { settledPieces, growingPiece } = splitGrowingText({ text: 'Hello there', maxLength: 2000 });
    expect(settledPieces).toEqual([]);
    expect(growingPiece?.text).toBe('Hello there');
  });

  it('settles only cuts that later text cannot move', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const random = createRandom(seed);
      const maxLength = 40 + Math.floor(random() * 300);
      const text = randomMarkdown({
        random,
        targetLength: 2500,
        longWordLength: maxLength,
        mayEndInCode: true,
      });
      let settledEnd = 0;
      const settledTexts: string[] = [];
      for (let length = 1; length <= text.length; length += 1 + Math.floor(random() * 12)) {
        const growing = splitGrowingText({ text: text.slice(0, length), maxLength, startIndex: settledEnd });
        for (const piece of growing.settledPieces) {
          settledTexts.push(piece.text);
          settledEnd = piece.sourceEnd;
        }
        expect(growing.growingPiece?.text.length ?? 0).toBeLessThanOrEqual(maxLength);
      }
      const rest = texts(splitMessage({ text, maxLength, startIndex: settledEnd }));
      expect([...settledTexts, ...rest], `seed ${seed}`).toEqual(texts(splitMessage({ text, maxLength })));
    }
  });
});

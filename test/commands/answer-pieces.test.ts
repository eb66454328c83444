import { describe, expect, it } from 'vitest';
import { splitCommandResult } from '../../commands/answer-pieces.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { OutgoingFile } from '../../src/delivery/surface.ts';

const regenerate: Action = {
  id: 'parley:extract.regenerate:pieces',
  label: 'Regenerate',
  style: 'secondary',
};
const file: OutgoingFile = { name: 'data.csv', mimeType: 'text/csv', bytes: Buffer.from('a,b\n1,2\n') };
const card = { title: 'Stock list', description: 'Twelve items in three rooms.' };

describe('splitCommandResult', () => {
  it('leaves a result whose text fits, or that has no text, as one piece, unchanged', () => {
    const fitting = { text: 'Short.', card, actions: [regenerate] };
    expect(splitCommandResult({ result: fitting, maxLength: 100 })).toEqual([fitting]);
    expect(splitCommandResult({ result: { card }, maxLength: 100 })).toEqual([{ card }]);
    const long = { text: 'word '.repeat(100) };
    expect(splitCommandResult({ result: long, maxLength: undefined })).toEqual([long]);
  });

  it('cuts a long text, keeps its privacy on every piece, and gives the card, files and buttons to the last', () => {
    const text = [
      'Intro line.',
      '```py',
      ...Array.from({ length: 30 }, (_, i) => `x${i} = ${i}`),
      '```',
    ].join('\n');
    const result = { text, card, files: [file], actions: [regenerate], isPrivate: true };
    const pieces = splitCommandResult({ result, maxLength: 60 });

    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) {
      expect(piece.isPrivate).toBe(true);
      expect(piece.text?.length).toBeLessThanOrEqual(60);
    }
    expect(pieces.slice(0, -1).every((piece) => Object.keys(piece).sort().join() === 'isPrivate,text')).toBe(
      true,
    );
    expect(pieces.at(-1)).toMatchObject({ card, files: [file], actions: [regenerate] });
    // A piece cut inside the code block closes it, and the next reopens it with its language.
    expect(pieces[1]?.text?.startsWith('```py\n')).toBe(true);
    expect(pieces[0]?.text?.endsWith('```')).toBe(true);
  });
});

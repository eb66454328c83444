import { describe, expect, it } from 'vitest';
import { earlyPartEnd } from '../../src/delivery/early-part.ts';

const partOf = (text: string, start = 0): string | null => {
  const end = earlyPartEnd(text, start);
  return end === null ? null : text.slice(start, end);
};

describe('earlyPartEnd', () => {
  it('ends after the last whitespace that has text after it, keeping the whitespace', () => {
    expect(partOf('Lorem ipsum dolor sit')).toBe('Lorem ipsum dolor ');
    expect(partOf('One line.\nAnother')).toBe('One line.\n');
    expect(partOf('Lorem ipsum ')).toBe('Lorem ');
  });

  it('has no part before a first word is followed by anything', () => {
    expect(partOf('Lorem')).toBeNull();
    expect(partOf('Lorem ')).toBeNull();
    expect(partOf('   Lorem')).toBeNull();
  });

  it('counts from `start`', () => {
    expect(partOf('Done before. Then more words', 13)).toBe('Then more ');
  });

  it('never cuts inside a code block, its fence lines included', () => {
    expect(partOf('```ts\nconst a = 1;\nconst b')).toBeNull();
    expect(partOf('Intro:\n```ts\nconst a = 1;\nconst b')).toBe('Intro:\n');
    expect(partOf('```ts\nconst a = 1;\n```\nAfter')).toBe('```ts\nconst a = 1;\n```\n');
    expect(partOf('```ts\nconst a = 1;\n``` \nAfter')).toBe('```ts\nconst a = 1;\n``` \n');
  });

  it('never leaves an inline code span, bold text or a link open', () => {
    expect(partOf('Run `npm run bench` now')).toBe('Run `npm run bench` ');
    expect(partOf('Run `npm run bench')).toBe('Run ');
    expect(partOf('A **very bold claim** is')).toBe('A **very bold claim** ');
    expect(partOf('A **very bold')).toBe('A ');
    expect(partOf('See [the guide to it](https://example.org) now')).toBe(
      'See [the guide to it](https://example.org) ',
    );
    expect(partOf('See [the guide to')).toBe('See ');
    expect(partOf('See <https://example.org|the guide to')).toBe('See ');
  });

  it('never splits a table: not inside a row, not between two rows', () => {
    const table = 'Intro line.\n| a | b |\n|---|---|\n| 1 | 2 |\n';
    expect(partOf(`${table}| 3 `)).toBe('Intro line.\n');
    expect(partOf(`${table}After`)).toBe(table);
  });
});

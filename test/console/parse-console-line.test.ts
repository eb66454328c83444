import { describe, expect, it } from 'vitest';
import { parseConsoleLine } from '../../adapters/console/parse-console-line.ts';

describe('parseConsoleLine', () => {
  it.each([
    ['', { kind: 'empty' }],
    ['   ', { kind: 'empty' }],
    ['hello there', { kind: 'chat', text: 'hello there' }],
    ['/reset', { kind: 'command', name: 'reset', text: '' }],
    ['/Imagine a fox --n 2', { kind: 'command', name: 'imagine', text: 'a fox --n 2' }],
    ['/press 2', { kind: 'press', actionNumber: 2 }],
    ['/EXIT', { kind: 'exit' }],
    ['/image shot.png what does it say?', { kind: 'image', path: 'shot.png', question: 'what does it say?' }],
    ['/image "my shot.png" read it', { kind: 'image', path: 'my shot.png', question: 'read it' }],
    ['/image shot.png', { kind: 'image', path: 'shot.png', question: 'What is in this image?' }],
  ])('%j', (line, expected) => {
    expect(parseConsoleLine(line)).toEqual(expected);
  });

  it('explains usage in one line', () => {
    expect(parseConsoleLine('/image')).toEqual({
      kind: 'invalid',
      message: 'Usage: /image <path> <question>',
    });
    expect(parseConsoleLine('/press first')).toEqual({
      kind: 'invalid',
      message: 'Usage: /press <number>, e.g. /press 1',
    });
  });
});

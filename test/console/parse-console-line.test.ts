import { describe, expect, it } from 'vitest';
import { parseConsoleLine } from '../../adapters/console/parse-console-line.ts';

describe('parseConsoleLine', () => {
  it.each([
    ['', { kind: 'empty' }],
    ['   ', { kind: 'empty' }],
    ['hello there', { kind: 'chat', text: 'hello there' }],
    ['/reset', { kind: 'reset' }],
    ['/EXIT', { kind: 'exit' }],
    ['/imagine a red fox', { kind: 'imagine', prompt: 'a red fox' }],
    ['/image shot.png what does it say?', { kind: 'image', path: 'shot.png', question: 'what does it say?' }],
    ['/image "my shot.png" read it', { kind: 'image', path: 'my shot.png', question: 'read it' }],
    ['/image shot.png', { kind: 'image', path: 'shot.png', question: 'What is in this image?' }],
  ])('%j', (line, expected) => {
    expect(parseConsoleLine(line)).toEqual(expected);
  });

  it('explains usage and unknown commands in one line', () => {
    expect(parseConsoleLine('/imagine')).toEqual({ kind: 'invalid', message: 'Usage: /imagine <prompt>' });
    expect(parseConsoleLine('/image')).toEqual({
      kind: 'invalid',
      message: 'Usage: /image <path> <question>',
    });
    expect(parseConsoleLine('/dance')).toEqual({
      kind: 'invalid',
      message: 'Unknown command /dance. Type /help for the list.',
    });
  });
});

import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMessageJoiner, readMessages } from '../../adapters/console/read-messages.ts';

describe('lines into messages', () => {
  it('makes a paste one message with the line that ends it', () => {
    const joiner = createMessageJoiner();
    expect(joiner.add('first', { isPasted: true })).toBeUndefined();
    expect(joiner.add('second', { isPasted: true })).toBeUndefined();
    expect(joiner.isContinuing()).toBe(true);
    expect(joiner.add('third, typed on', { isPasted: false })).toBe('first\nsecond\nthird, typed on');
    expect(joiner.isContinuing()).toBe(false);
  });

  it('goes on after a line that ends with a backslash, leaving the backslash out', () => {
    const joiner = createMessageJoiner();
    expect(joiner.add('Dear team,\\', { isPasted: false })).toBeUndefined();
    expect(joiner.add('  the build is green.\\', { isPasted: false })).toBeUndefined();
    expect(joiner.add('Thanks', { isPasted: false })).toBe('Dear team,\n  the build is green.\nThanks');
    expect(joiner.add('next', { isPasted: false })).toBe('next');
  });

  it('reads piped lines as one message each, joined only where a line ends with a backslash', async () => {
    const input = new PassThrough();
    const lines = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
    const messages: string[] = [];
    const read = (async () => {
      for await (const message of readMessages({ lines, input, isInteractive: false, prompt: '> ' })) {
        messages.push(message);
      }
    })();
    input.end('one\ntwo \\\nand three\nfour\n');
    await read;
    expect(messages).toEqual(['one', 'two \nand three', 'four']);
  });
});

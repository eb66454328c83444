import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/gateway/gateway-error.ts';
import { chatChunkBatches } from '../../src/gateway/server-sent-chunks.ts';

/** A response body that hands out `reads` one network read at a time, and says whether it was cancelled. */
function bodyOf(reads: readonly string[]): { body: ReadableStream<Uint8Array>; wasCancelled: () => boolean } {
  const encoder = new TextEncoder();
  let index = 0;
  let isCancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const read = reads[index];
      index += 1;
      if (read === undefined) controller.close();
      else controller.enqueue(encoder.encode(read));
    },
    cancel() {
      isCancelled = true;
    },
  });
  return { body, wasCancelled: () => isCancelled };
}

function chunkEvent(content: string): string {
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;
}

async function readAll(
  body: ReadableStream<Uint8Array>,
  signal = new AbortController().signal,
): Promise<{ batches: string[][]; error: unknown }> {
  const batches: string[][] = [];
  try {
    for await (const chunks of chatChunkBatches(body, signal)) {
      batches.push(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? ''));
    }
    return { batches, error: undefined };
  } catch (error) {
    return { batches, error };
  }
}

describe('chatChunkBatches', () => {
  it('yields the chunks each read completed, in order, joining events split across reads', async () => {
    const whole = chunkEvent('Hello') + chunkEvent(' there') + chunkEvent('!');
    const splitAt = whole.indexOf('there');
    const { body } = bodyOf([whole.slice(0, splitAt), whole.slice(splitAt), 'data: [DONE]\n\n']);
    const { batches, error } = await readAll(body);
    expect(error).toBeUndefined();
    // The first read completes "Hello" and part of the next event; the last brings only [DONE].
    expect(batches).toEqual([['Hello'], [' there', '!']]);
  });

  it('reads CRLF line endings and skips comments, as the SSE standard allows', async () => {
    const event = chunkEvent('a').replaceAll('\n', '\r\n');
    const { body } = bodyOf([`: keep-alive\r\n\r\n${event}`, 'data: [DONE]\r\n\r\n']);
    const { batches, error } = await readAll(body);
    expect(error).toBeUndefined();
    expect(batches.flat()).toEqual(['a']);
  });

  it('stops at [DONE] and cancels the rest of the body, so nothing after it counts', async () => {
    const { body, wasCancelled } = bodyOf([
      `${chunkEvent('one')}data: [DONE]\n\n${chunkEvent('after')}`,
      chunkEvent('later'),
    ]);
    const { batches, error } = await readAll(body);
    expect(error).toBeUndefined();
    expect(batches.flat()).toEqual(['one']);
    expect(wasCancelled()).toBe(true);
  });

  it('ends quietly with the body, leaving the caller to judge a stream without [DONE]', async () => {
    const { body, wasCancelled } = bodyOf([chunkEvent('half')]);
    const { batches, error } = await readAll(body);
    expect(error).toBeUndefined();
    expect(batches.flat()).toEqual(['half']);
    expect(wasCancelled()).toBe(false);
  });

  it('yields nothing for a read of comments alone, so keep-alives do not look like text', async () => {
    const { body } = bodyOf([': keep-alive\n\n', ': keep-alive\n\n', chunkEvent('a'), 'data: [DONE]\n\n']);
    const { batches, error } = await readAll(body);
    expect(error).toBeUndefined();
    expect(batches).toEqual([['a']]);
  });

  it('counts a last event without its blank line when the body ends, and calls one cut mid-line interrupted', async () => {
    const whole = bodyOf([chunkEvent('a'), chunkEvent('b').trimEnd()]);
    expect((await readAll(whole.body)).batches.flat()).toEqual(['a', 'b']);
    const cut = bodyOf([chunkEvent('a'), 'data: {"choices": [{"de']);
    const { batches, error } = await readAll(cut.body);
    expect(batches.flat()).toEqual(['a']);
    expect((error as GatewayError).kind).toBe('stream-interrupted');
  });

  it('ends as interrupted at an error event or a chunk carrying an error, after the text before it', async () => {
    for (const failure of [
      `event: error\ndata: ${JSON.stringify({ error: { message: 'upstream overloaded' } })}\n\n`,
      `data: ${JSON.stringify({ error: { message: 'upstream overloaded', code: 'server_error' } })}\n\n`,
    ]) {
      const { body, wasCancelled } = bodyOf([chunkEvent('kept') + failure, chunkEvent('never')]);
      const { batches, error } = await readAll(body);
      expect(batches.flat()).toEqual(['kept']);
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).kind).toBe('stream-interrupted');
      expect((error as GatewayError).message).toContain('upstream overloaded');
      expect(wasCancelled()).toBe(true);
    }
  });

  it('ends as an invalid reply at data that is not a JSON object', async () => {
    for (const data of ['{"choices": [', '42']) {
      const { body } = bodyOf([`data: ${data}\n\n`]);
      const { error } = await readAll(body);
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).kind).toBe('invalid-reply');
    }
  });

  it('refuses one event that grows past a megabyte instead of holding all of it', async () => {
    const piece = 'x'.repeat(256 * 1024);
    const { body, wasCancelled } = bodyOf(['data: ', piece, piece, piece, piece, piece, '\n\n']);
    const { error } = await readAll(body);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe('invalid-reply');
    expect(wasCancelled()).toBe(true);
  });

  it('cancels the body when the signal aborts and ends without an error of its own', async () => {
    const controller = new AbortController();
    let isCancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(streamController) {
        streamController.enqueue(new TextEncoder().encode(chunkEvent('first')));
      },
      cancel() {
        isCancelled = true;
      },
    });
    const batches: string[] = [];
    for await (const chunks of chatChunkBatches(body, controller.signal)) {
      batches.push(...chunks.map((chunk) => chunk.choices[0]?.delta.content ?? ''));
      // The next read waits for bytes that never come until the abort cancels the body.
      controller.abort(new Error('stopped by the caller'));
    }
    expect(batches).toEqual(['first']);
    expect(isCancelled).toBe(true);
  });
});

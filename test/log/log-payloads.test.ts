import { type Client, DiscordAPIError, type TextChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from '../fakes-discord/discord-client.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';

describe('log lines carry sizes, names and status codes, never payloads', () => {
  let fake: FakeDiscord;
  let client: Client<true>;

  beforeAll(async () => {
    // A small attachment limit, so a 2 MB upload fails the way a 14 MB PNG does at Discord's 10 MiB.
    fake = await startFakeDiscord({ attachmentSizeLimitBytes: 1024 * 1024 });
    client = await connectClient(fake);
  });
  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });

  it('logs a failed discord.js upload by its status, code, route and file sizes, not its bytes', async () => {
    const bytes = Buffer.alloc(2 * 1024 * 1024, 0x5a);
    const channel = (await client.channels.fetch(fake.textChannelIds[0] ?? '')) as TextChannel;
    const failure = await channel
      .send({ content: 'here', files: [{ attachment: bytes, name: 'drawing.png' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    // The error discord.js produces holds the whole request, file bytes included.
    expect(failure).toBeInstanceOf(DiscordAPIError);
    expect(JSON.stringify((failure as DiscordAPIError).requestBody).length).toBeGreaterThan(bytes.length);

    const { logger, output } = createCapturedLogger();
    logger.warn(
      { err: failure, attempt: { files: [{ name: 'drawing.png', data: bytes }] } },
      'upload failed',
    );
    const line = output();

    expect(line.length).toBeLessThan(8_000);
    expect(line).not.toContain('ZZZZ');
    expect(line).not.toContain('"type":"Buffer"');
    const entry = JSON.parse(line) as { err: Record<string, unknown>; attempt: unknown };
    expect(entry.err).toMatchObject({
      type: 'DiscordAPIError',
      status: 413,
      code: 40005,
      method: 'POST',
    });
    expect(JSON.stringify(entry.err)).toContain('drawing.png');
    expect(JSON.stringify(entry.err)).toContain(String(bytes.length));
    expect(entry.attempt).toEqual({ files: [{ name: 'drawing.png', data: `[${bytes.length} bytes]` }] });
  });

  it('caps a long string, a long array and a deep object', () => {
    const { logger, output } = createCapturedLogger();
    const deep = { a: { b: { c: { d: { e: { f: 'far down' } } } } } };
    logger.info(
      {
        reply: 'x'.repeat(50_000),
        items: Array.from({ length: 500 }, (_, index) => index),
        deep,
        view: new Uint8Array(4_096),
      },
      'big values',
    );
    const line = output();
    expect(line.length).toBeLessThan(8_000);
    const entry = JSON.parse(line) as Record<string, unknown>;
    expect(String(entry.reply)).toMatch(/^x{1000}… \[50000 characters\]$/);
    expect((entry.items as unknown[]).length).toBe(21);
    expect((entry.items as unknown[]).at(-1)).toBe('… 480 more');
    expect(JSON.stringify(entry.deep)).not.toContain('far down');
    expect(entry.view).toBe('[4096 bytes]');
  });

  it('keeps an error chain readable: causes, codes and messages, capped', () => {
    const { logger, output } = createCapturedLogger();
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const error = Object.assign(new Error(`request failed: ${'y'.repeat(10_000)}`, { cause }), {
      status: 503,
      body: '<html>'.repeat(10_000),
    });
    logger.error({ err: error }, 'call failed');
    const entry = JSON.parse(output()) as { err: Record<string, unknown> };
    expect(entry.err).toMatchObject({ type: 'Error', status: 503, cause: { code: 'ECONNREFUSED' } });
    expect(String(entry.err.message).length).toBeLessThan(1_100);
    expect(entry.err.body).toBe('[body omitted, 60000 characters]');
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keyv } from 'keyv';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeActionId } from '../../commands/action-store.ts';
import type { CommandResult } from '../../commands/define-command.ts';
import { runAction } from '../../commands/run-action.ts';
import { createImageStore } from '../../src/images/image-store.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

const dayMs = 24 * 60 * 60 * 1000;

/** A PNG of pseudo-random pixels: it does not compress, so its size is about 3 bytes a pixel. */
async function noisePng(seed: number, sidePx = 64): Promise<Uint8Array> {
  let state = seed;
  const pixels = Buffer.alloc(sidePx * sidePx * 3);
  for (let index = 0; index < pixels.length; index += 1) {
    // xorshift32: cheap, and noisy enough that PNG cannot compress it.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    pixels[index] = state & 0xff;
  }
  return new Uint8Array(
    await sharp(pixels, { raw: { width: sidePx, height: sidePx, channels: 3 } })
      .png()
      .toBuffer(),
  );
}

describe('the image store keeps one copy of each image, for as long as its buttons', () => {
  it('keeps the same image once, however often it is kept', async () => {
    const images = createImageStore({ store: new Keyv(), maxTotalBytes: 10_000_000, lifetimeMs: 7 * dayMs });
    const png = await noisePng(7);
    const refs = [];
    for (let turn = 0; turn < 3; turn += 1)
      refs.push(await images.keep({ bytes: png, mimeType: 'image/png' }));
    expect(new Set(refs.map((ref) => ref.imageHash)).size).toBe(1);
    expect(await images.totalStoredBytes()).toBe(Buffer.from(png).toString('base64').length);
    expect((await images.load(refs[0] ?? { imageHash: '' }))?.bytes).toEqual(png);
  });

  it('evicts the oldest images past the cap', async () => {
    const [first, second, third] = await Promise.all([noisePng(3), noisePng(5), noisePng(11)]);
    const oneCopy = Buffer.from(first ?? []).toString('base64').length;
    let nowMs = 0;
    const images = createImageStore({
      store: new Keyv(),
      maxTotalBytes: Math.floor(oneCopy * 2.5),
      lifetimeMs: 7 * dayMs,
      now: () => nowMs,
    });
    const refs = [];
    for (const bytes of [first, second, third]) {
      nowMs += 1_000;
      refs.push(await images.keep({ bytes: bytes ?? new Uint8Array(), mimeType: 'image/png' }));
    }
    const kept = await Promise.all(refs.map((ref) => images.load(ref)));
    expect(kept.map((image) => image !== undefined)).toEqual([false, true, true]);
    expect(await images.totalStoredBytes()).toBeLessThanOrEqual(oneCopy * 2.5);
  });

  it('forgets an image the buttons have outlived, even where the store would keep it', async () => {
    const [old, fresh] = await Promise.all([noisePng(13), noisePng(17)]);
    let nowMs = 0;
    const store = new Keyv();
    const images = createImageStore({
      store,
      maxTotalBytes: 10_000_000,
      lifetimeMs: 7 * dayMs,
      now: () => nowMs,
    });
    const oldRef = await images.keep({ bytes: old ?? new Uint8Array(), mimeType: 'image/png' });
    nowMs += 9 * dayMs;
    await images.keep({ bytes: fresh ?? new Uint8Array(), mimeType: 'image/png' });
    expect(await store.get(`image:${oldRef.imageHash}`)).toBeUndefined();
    expect(await images.totalStoredBytes()).toBe(Buffer.from(fresh ?? []).toString('base64').length);
  });
});

describe('buttons and kept images', () => {
  let under: ConsoleUnderTest;
  afterEach(() => under.close());

  it('Regenerate of a turn whose image is gone says so privately and asks for nothing', async () => {
    under = await startConsoleUnderTest({ IMAGE_STORE_MAX_BYTES: '20000' });
    const { actionStore } = under.services;
    const png = await noisePng(19);
    const ref = await actionStore.images.keep({ bytes: png, mimeType: 'image/png' });
    const token = await actionStore.save({
      kind: 'chat',
      conversationKey: 'console:local:ada',
      author: { id: 'ada', name: 'ada' },
      text: 'what is this?',
      images: [ref],
    });
    // Two more images push the first past the 20,000-byte cap.
    await actionStore.images.keep({ bytes: await noisePng(23), mimeType: 'image/png' });
    await actionStore.images.keep({ bytes: await noisePng(29), mimeType: 'image/png' });
    const sent: CommandResult[] = [];
    await runAction({
      actionId: encodeActionId({ verb: 'chat.regenerate', token }),
      user: { id: 'ada', name: 'ada', isAdmin: true, roleIds: [], context: 'server' as const },
      responder: {
        surface: {
          limits: { maxMessageLength: 2_000, minEditIntervalMs: 0 },
          post: async () => ({ id: 'm' }),
          edit: async () => {},
        },
        progress: async () => undefined,
        send: async (result) => {
          sent.push(result);
        },
      },
      services: under.services,
      signal: new AbortController().signal,
    });
    expect(sent).toEqual([
      {
        text: 'The image this button needs is no longer kept (images are kept for 7 days, fewer when many are sent). Please send it again.',
        isPrivate: true,
      },
    ]);
    expect(under.fake.requests).toEqual([]);
  });

  it('three image turns of one screenshot keep it once; Regenerate sends it again', async () => {
    under = await startConsoleUnderTest({ CHAT_MODEL: 'vision-model' });
    const path = join(under.workDirectory, 'shot.png');
    const png = await noisePng(31, 200);
    writeFileSync(path, png);
    await under.type(
      `/image ${path} what is this?`,
      `/image ${path} and now?`,
      `/image ${path} once more?`,
      '/press 1',
    );
    const chats = under.fake.requests.filter((request) => request.path.endsWith('/chat/completions'));
    expect(chats).toHaveLength(4);
    expect(JSON.stringify(chats[3]?.body)).toContain(Buffer.from(png).toString('base64'));
    expect(await under.services.actionStore.images.totalStoredBytes()).toBe(
      Buffer.from(png).toString('base64').length,
    );
  });
});

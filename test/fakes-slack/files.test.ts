import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createWebClient, slackErrorOf } from './web-client.ts';

// The first bytes of a PNG, enough for the fake (and a bot) to tell the type by its bytes.
const pngBytes = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('rest of a png'),
]);

describe('fake slack: files', () => {
  let fake: FakeSlack;
  let client: WebClient;

  beforeAll(async () => {
    fake = await startFakeSlack({ rateLimits: false });
    client = createWebClient(fake);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('receives the bytes of filesUploadV2 and shares the file in the thread, a moment later', async () => {
    const thread = fake.addMessage({ channel: 'C0FILES001', user: 'U0PERSON01', text: 'draw a cat' });

    const result = await client.filesUploadV2({
      channel_id: 'C0FILES001',
      thread_ts: thread.ts,
      file: pngBytes,
      filename: 'cat.png',
      title: 'A cat',
      alt_text: 'a drawn cat',
      initial_comment: 'Here is your cat',
    });

    expect(fake.uploadedFiles).toHaveLength(1);
    const [uploaded] = fake.uploadedFiles;
    expect(uploaded).toMatchObject({
      name: 'cat.png',
      title: 'A cat',
      mimetype: 'image/png',
      announcedLength: pngBytes.length,
      altText: 'a drawn cat',
      channel: 'C0FILES001',
      threadTs: thread.ts,
      initialComment: 'Here is your cat',
    });
    expect(uploaded?.bytes.equals(pngBytes)).toBe(true);
    // Completing answers only id and title; the share comes afterwards.
    expect(fake.callsTo('files.completeUploadExternal')[0]?.result).toEqual({
      ok: true,
      files: [{ id: uploaded?.id, title: 'A cat' }],
    });
    expect(JSON.stringify(result)).not.toContain('shares');
    expect(fake.messages('C0FILES001', thread.ts)).toEqual([]);
    const before = await client.files.info({ file: String(uploaded?.id) });
    expect(before.file).toMatchObject({ channels: [], groups: [], ims: [] });
    expect(before.file?.shares).toBeUndefined();

    const [message] = await fake.waitFor(() => {
      const shared = fake.messages('C0FILES001', thread.ts);
      return shared.length > 0 ? shared : undefined;
    });
    expect(message).toMatchObject({
      text: 'Here is your cat',
      botId: fake.workspace.botId,
      files: [{ id: uploaded?.id, name: 'cat.png' }],
    });
    const after = await client.files.info({ file: String(uploaded?.id) });
    expect(after.file).toMatchObject({
      channels: ['C0FILES001'],
      shares: { public: { C0FILES001: [{ ts: message?.ts, thread_ts: thread.ts }] } },
    });
    expect(fake.uploadedFiles[0]?.messageTs).toBe(message?.ts);
    expect(fake.calls.map((call) => call.method)).toEqual([
      'files.getUploadURLExternal',
      'files.completeUploadExternal',
      'files.info',
      'files.info',
    ]);
  });

  it('refuses to complete an upload whose bytes never arrived', async () => {
    const url = await client.files.getUploadURLExternal({ filename: 'a.txt', length: 3 });

    expect(
      await slackErrorOf(
        client.files.completeUploadExternal({ files: [{ id: url.file_id as string }], channel_id: 'C1' }),
      ),
    ).toBe('file_not_found');
  });

  it('serves a private file with the bot token, and a sign-in page without it', async () => {
    const file = fake.addFile({ name: 'screenshot.png', bytes: pngBytes });

    const authorized = await fetch(file.url_private_download, {
      headers: { authorization: `Bearer ${fake.botToken}` },
    });
    expect(authorized.status).toBe(200);
    expect(authorized.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await authorized.arrayBuffer()).equals(pngBytes)).toBe(true);

    for (const headers of [{}, { authorization: 'Bearer xoxb-someone-else' }]) {
      const anonymous = await fetch(file.url_private, { headers });
      // fetch follows Slack's redirect: what arrives is a 200 HTML page, not the image and not an error.
      expect(anonymous.status).toBe(200);
      expect(anonymous.redirected).toBe(true);
      expect(anonymous.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await anonymous.text()).toContain('Sign in to Fake Workspace');
    }

    const manual = await fetch(file.url_private, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(fake.fileDownloads.map((download) => download.isAuthorized)).toEqual([true, false, false, false]);
  });

  it('lets the bot download the files it uploaded', async () => {
    await client.filesUploadV2({
      channel_id: 'C0FILES002',
      file: Buffer.from('hello'),
      filename: 'hello.txt',
    });
    const [message] = await fake.waitFor(() => {
      const shared = fake.messages('C0FILES002');
      return shared.length > 0 ? shared : undefined;
    });
    const url = message?.files?.[0]?.url_private_download ?? '';

    const response = await fetch(url, { headers: { authorization: `Bearer ${fake.botToken}` } });

    expect(await response.text()).toBe('hello');
  });
});

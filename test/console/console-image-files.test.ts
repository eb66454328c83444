import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLocalImage } from '../../adapters/console/read-local-image.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

let under: ConsoleUnderTest;
beforeEach(async () => {
  under = await startConsoleUnderTest();
});
afterEach(() => under.close());

const conversationKey = conversationKeyOf({ platform: 'console', workspace: 'local', channel: 'ada' });
const gatewayRequests = () => under.fake.requests.filter((request) => request.path.startsWith('/api/v1/'));

describe('/image with a file that is not there or not an image', () => {
  it('refuses a missing file before calling the model, and keeps nothing in history', async () => {
    const missing = join(under.workDirectory, 'no-such-shot.png');
    const printed = await under.type(`/image ${missing} what does the error say?`);
    expect(printed).toContain(`There is no file at ${missing}.`);
    expect(gatewayRequests()).toEqual([]);
    expect(await under.services.history.load(conversationKey)).toEqual([]);
  });

  it('refuses a file that is not an image, by its bytes', async () => {
    const notes = join(under.workDirectory, 'notes.png');
    writeFileSync(notes, 'just some text, whatever the name says');
    const printed = await under.type(`/image ${notes} what is this?`);
    expect(printed).toContain(`${notes} is not an image I can read (PNG, JPEG, GIF or WebP).`);
    expect(gatewayRequests()).toEqual([]);
    expect(await under.services.history.load(conversationKey)).toEqual([]);
  });

  it('refuses a folder', async () => {
    const printed = await under.type(`/image ${under.workDirectory} what is this?`);
    expect(printed).toContain(`${under.workDirectory} is a folder, not an image.`);
    expect(gatewayRequests()).toEqual([]);
  });

  it('refuses a missing file given to a command image option, before the command runs', async () => {
    const missing = join(under.workDirectory, 'gone.png');
    const printed = await under.type(`/extract the totals --image ${missing}`);
    expect(printed).toContain(`There is no file at ${missing}.`);
    expect(gatewayRequests()).toEqual([]);
  });
});

describe('readLocalImage', () => {
  it('expands ~ to the home folder and checks the bytes', async () => {
    const home = join(under.workDirectory, 'home');
    mkdirSync(join(home, 'pictures'), { recursive: true });
    const png = createSolidPng({ widthPx: 2, heightPx: 2, colour: { red: 1, green: 2, blue: 3 } });
    writeFileSync(join(home, 'pictures', 'shot.png'), png);
    const image = await readLocalImage({
      path: '~/pictures/shot.png',
      homeDirectory: home,
      workingDirectory: process.cwd(),
    });
    if ('problem' in image) throw new Error(image.problem);
    expect(image.attachment.name).toBe('shot.png');
    expect(await image.attachment.load()).toEqual(new Uint8Array(png));
    expect(
      await readLocalImage({
        path: '~/pictures/absent.png',
        homeDirectory: home,
        workingDirectory: process.cwd(),
      }),
    ).toEqual({
      problem: `There is no file at ${join(home, 'pictures/absent.png')}.`,
    });
  });
});

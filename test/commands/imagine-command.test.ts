import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectImageType } from '../../src/images/image-type.ts';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

let under: ConsoleUnderTest;
beforeEach(async () => {
  under = await startConsoleUnderTest();
});
afterEach(() => under.close());

type ImageBody = {
  model: string;
  prompt: string;
  n: number;
  aspect_ratio?: string;
  output_format?: string;
  image_input?: string[];
};
const imageBodies = () =>
  under.fake.requests
    .filter((request) => request.path.endsWith('/images/generations'))
    .map((request) => request.body as ImageBody);

describe('/imagine in the terminal', () => {
  it('sends count, aspect ratio and format, shows progress, and saves every image', async () => {
    const printed = await under.type('/imagine a red fox in snow --n 2 --ar 16:9 --format jpg');
    expect(imageBodies()).toEqual([
      { model: 'image-model', prompt: 'a red fox in snow', n: 2, aspect_ratio: '16:9', output_format: 'jpg' },
    ]);
    expect(printed).toContain('🎨 drawing 2 images…');
    expect(printed).toMatch(/\*\*a red fox in snow\*\*\n_ada · 2 images in \d+\.\d s_/);
    const files = readdirSync(under.outputDirectory).sort();
    expect(files).toEqual(['parley-a-red-fox-in-snow-1.jpg', 'parley-a-red-fox-in-snow-2.jpg']);
    for (const file of files) {
      expect(detectImageType(readFileSync(join(under.outputDirectory, file)))).toBe('image/jpeg');
      expect(printed).toContain(`saved ${join(under.outputDirectory, file)}`);
    }
    const report = await under.app.usage.report({
      userId: 'ada',
      conversationKey: 'console:local:ada',
      at: new Date(),
    });
    expect(report.user.today.images).toBe(2);
  });

  it('refuses a local reference image for a model that takes only links, before calling the gateway', async () => {
    const referencePath = join(under.workDirectory, 'sketch.png');
    writeFileSync(
      referencePath,
      createSolidPng({ widthPx: 2, heightPx: 2, colour: { red: 9, green: 9, blue: 9 } }),
    );
    const printed = await under.type(`/imagine make it blue --ref ${referencePath}`);
    // The reference says image_input takes links, and a file in the terminal has none.
    expect(printed).toContain(
      '⚠ The image model image-model takes reference images only as links, and this image has no public link here',
    );
    expect(imageBodies()).toEqual([]);
  });

  it('sends a local reference image as a data: URI where the model takes them, and offers Vary', async () => {
    const dataUri = await startConsoleUnderTest({ IMAGE_MODEL: 'data-uri-image-model' });
    try {
      const referencePath = join(dataUri.workDirectory, 'sketch.png');
      const png = createSolidPng({ widthPx: 2, heightPx: 2, colour: { red: 9, green: 9, blue: 9 } });
      writeFileSync(referencePath, png);
      const printed = await dataUri.type(`/imagine make it blue --ref ${referencePath}`, '/press 2');
      const bodies = dataUri.fake.requests
        .filter((request) => request.path.endsWith('/images/generations'))
        .map((request) => request.body as ImageBody);
      expect(bodies[0]?.image_input).toEqual([`data:image/png;base64,${png.toString('base64')}`]);
      // Vary sends the drawn image back, kept once in the store.
      const drawn = readFileSync(join(dataUri.outputDirectory, 'parley-make-it-blue-1.png'));
      expect(bodies[1]?.image_input).toEqual([`data:image/png;base64,${drawn.toString('base64')}`]);
      expect(printed).not.toContain('⚠');
    } finally {
      await dataUri.close();
    }
  });

  it('offers no Vary where the drawn image has no link, says why, and keeps the buttons on a refusal', async () => {
    const printed = await under.type('/imagine a lighthouse', '/press 2', '/press 1');
    expect(printed).toContain(
      'No Vary button: the image model image-model takes reference images only as links, and images posted here have none it could fetch.',
    );
    expect(printed).toContain('There is no button 2 under the last answer.');
    // Button 1, Regenerate, still works after the refused press.
    expect(imageBodies()).toHaveLength(2);
  });

  it('rejects a bad option in one line that says what is allowed, without calling the gateway', async () => {
    const printed = await under.type('/imagine a fox --n 9 --ar 5:1');
    expect(printed).toContain('⚠ --n must be a whole number from 1 to 4; --ar must be one of 1:1, 16:9');
    expect(printed).toContain('Usage: `/imagine <prompt> [--count 1–4] [--aspect-ratio');
    expect(imageBodies()).toEqual([]);
    expect(await under.type('/imagine')).toContain('prompt is required');
  });

  it('Regenerate draws the same request again; Vary sends the generated image as the reference', async () => {
    // An image model that answers with links: Vary hands the gateway its own link back.
    const linking = await startConsoleUnderTest({ IMAGE_MODEL: 'url-image-model' });
    try {
      const printed = await linking.type('/imagine a lighthouse --ar 4:3', '/press 1', '/press 2');
      const bodies = linking.fake.requests
        .filter((request) => request.path.endsWith('/images/generations'))
        .map((request) => request.body as ImageBody & { response_format?: string });
      const [first, regenerated, varied] = bodies;
      expect(first?.response_format).toBe('url');
      expect(regenerated).toEqual(first);
      expect(varied?.n).toBe(1);
      expect(varied?.aspect_ratio).toBe('match_input_image');
      expect(varied?.image_input?.[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
      expect(printed).not.toContain('⚠');
      expect(readdirSync(linking.outputDirectory)).toHaveLength(3);
    } finally {
      await linking.close();
    }
  });

  it('a button press that fails says so privately and leaves the other buttons pressable', async () => {
    const linking = await startConsoleUnderTest({ IMAGE_MODEL: 'url-image-model' });
    try {
      // The first drawing works; the Vary after it fails at the gateway; Regenerate still works.
      linking.fake.enqueue({ endpoint: 'images' });
      linking.fake.enqueue({ endpoint: 'images', error: { status: 500 } });
      const printed = await linking.type('/imagine a lighthouse', '/press 2', '/press 1');
      const drawings = linking.fake.requests.filter((request) =>
        request.path.endsWith('/images/generations'),
      );
      expect(drawings).toHaveLength(3);
      expect(printed).toContain('⚠ ');
      expect(printed).not.toContain('There is no button 1');
      expect(readdirSync(linking.outputDirectory)).toHaveLength(2);
    } finally {
      await linking.close();
    }
  });

  it('says so when the image model cannot take an option, and still draws', async () => {
    const plain = await startConsoleUnderTest({ IMAGE_MODEL: 'plain-image-model' });
    try {
      const printed = await plain.type('/imagine a cat --ar 16:9');
      expect(printed).toContain('has no aspect ratio setting');
      expect(plain.fake.requests[0]?.body).not.toHaveProperty('aspect_ratio');
      expect(readdirSync(plain.outputDirectory)).toHaveLength(1);
    } finally {
      await plain.close();
    }
  });

  it('turns a gateway failure into one short line', async () => {
    under.fake.enqueue({ endpoint: 'images', error: { status: 402 } });
    const printed = await under.type('/imagine a cat');
    expect(printed).toContain('⚠ The model service balance is used up. An admin needs to top it up.');
  });
});

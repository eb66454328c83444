import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSolidPng } from '../fakes/gateway/index.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

let under: ConsoleUnderTest;
beforeEach(async () => {
  under = await startConsoleUnderTest();
});
afterEach(() => under.close());

type ChatBody = {
  model: string;
  response_format?: {
    type: string;
    json_schema?: { name: string; strict: boolean; schema: { required: string[] } };
  };
  messages: Array<{ role: string; content: unknown }>;
};
const chatBodies = () =>
  under.fake.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);

const summary = {
  title: 'Launch planning',
  tldr: 'We ship on Friday.',
  keyPoints: ['Release candidate is green', 'Docs need a pass'],
  decisions: ['Ship Friday'],
  actionItems: [{ owner: 'Grace', task: 'Update the docs', due: 'Thursday' }],
  openQuestions: ['Who announces it?'],
};

describe('/summarize', () => {
  it('reads the recent messages, asks with a strict JSON Schema, and shows a card', async () => {
    under.fake.enqueue({ text: 'Sure.' });
    under.fake.enqueue({ text: 'Friday it is.' });
    await under.type('we ship friday?', 'grace will do the docs by thursday');
    under.fake.enqueue({ text: JSON.stringify(summary) });
    const printed = await under.type('/summarize --m 10 --focus "dates"');

    const request = chatBodies().at(-1);
    expect(request?.response_format?.type).toBe('json_schema');
    expect(request?.response_format?.json_schema?.name).toBe('channel_summary');
    expect(request?.response_format?.json_schema?.strict).toBe(true);
    expect(request?.response_format?.json_schema?.schema.required).toEqual([
      'title',
      'tldr',
      'keyPoints',
      'decisions',
      'actionItems',
      'openQuestions',
    ]);
    const prompt = JSON.stringify(request?.messages);
    expect(prompt).toContain('focusing on: dates');
    expect(prompt).toContain('ada: we ship friday?');
    expect(prompt).toContain('parley: Friday it is.');

    expect(printed).toContain('**Launch planning**');
    expect(printed).toContain('**TL;DR** We ship on Friday.');
    expect(printed).toContain('• **Grace**: Update the docs _(due Thursday)_');
    expect(printed).toContain('**Open questions**\n• Who announces it?');
    expect(printed).toContain('4 messages · chat-model');
  });

  it('falls back to json_object with the schema in the prompt on a model without json_schema', async () => {
    const fallback = await startConsoleUnderTest({ STRUCTURED_MODEL: 'no-schema-model' });
    try {
      await fallback.type('hello');
      fallback.fake.enqueue({ text: JSON.stringify(summary) });
      const printed = await fallback.type('/summarize');
      const request = fallback.fake.requests.at(-1)?.body as ChatBody;
      expect(request.response_format).toEqual({ type: 'json_object' });
      expect(JSON.stringify(request.messages[0])).toContain('JSON Schema');
      expect(printed).toContain('**Launch planning**');
    } finally {
      await fallback.close();
    }
  });

  it('says there is nothing to summarize in an empty conversation', async () => {
    expect(await under.type('/summarize')).toContain('There is nothing here to summarize yet.');
    expect(chatBodies()).toEqual([]);
  });

  it('gives a clear message when the answer stays invalid, with the raw reply only in the log', async () => {
    await under.type('hello');
    under.fake.enqueue({ text: '{"title": 42, "secret": "RAW-REPLY-MARKER"}' });
    under.fake.enqueue({ text: '{"title": 43, "secret": "RAW-REPLY-MARKER"}' });
    const printed = await under.type('/summarize');
    expect(printed).toContain('⚠ The model gave an answer in the wrong shape, even after a second try.');
    expect(printed).not.toContain('RAW-REPLY-MARKER');
    expect(under.logOutput()).toContain('RAW-REPLY-MARKER');
    // The repair request quoted what was wrong.
    expect(JSON.stringify(chatBodies().at(-1)?.messages.at(-1))).toMatch(/title: .*expected string/i);
  });
});

describe('/extract', () => {
  const extraction = {
    title: 'Receipt from Café Luna',
    summary: 'Two coffees and a croissant.',
    fields: [
      { name: 'Total', value: '€9.40' },
      { name: 'Date', value: '2026-11-20' },
    ],
    table: {
      columns: ['Item', 'Qty', 'Price'],
      rows: [
        ['Flat white', '2', '€6.00'],
        ['Croissant, butter', '1', '€3.40'],
      ],
    },
  };

  it('sends the image to a vision model with the schema and attaches JSON and CSV', async () => {
    const receiptPath = join(under.workDirectory, 'receipt.png');
    const png = createSolidPng({ widthPx: 4, heightPx: 4, colour: { red: 250, green: 250, blue: 240 } });
    writeFileSync(receiptPath, png);
    under.fake.enqueue({ text: JSON.stringify(extraction) });
    const printed = await under.type(`/extract the line items --image ${receiptPath}`);

    const request = chatBodies()[0];
    expect(request?.model).toBe('vision-model');
    expect(request?.response_format?.json_schema?.name).toBe('extraction');
    const userContent = request?.messages.at(-1)?.content as Array<{
      type: string;
      text?: string;
      image_url?: { url: string };
    }>;
    expect(userContent[0]?.text).toContain('The person asks for: the line items');
    expect(userContent[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${png.toString('base64')}` },
    });

    expect(printed).toContain('**Receipt from Café Luna**');
    expect(printed).toContain('**Total**\n€9.40');
    expect(printed).toMatch(/Flat white +│ 2 +│ €6\.00/);
    const json = JSON.parse(readFileSync(join(under.outputDirectory, 'extraction.json'), 'utf8'));
    expect(json).toEqual(extraction);
    expect(readFileSync(join(under.outputDirectory, 'table.csv'), 'utf8')).toBe(
      'Item,Qty,Price\r\nFlat white,2,€6.00\r\n"Croissant, butter",1,€3.40\r\n',
    );
  });

  it('extracts from pasted text without an image', async () => {
    under.fake.enqueue({ text: JSON.stringify({ ...extraction, table: null }) });
    const printed = await under.type('/extract Invoice 42, total 100 EUR, due 1 Dec');
    const request = chatBodies()[0];
    expect(JSON.stringify(request?.messages.at(-1)?.content)).toContain('Invoice 42, total 100 EUR');
    expect(printed).toContain('saved');
    expect(printed).toContain('extraction.json');
    expect(printed).not.toContain('table.csv');
  });

  it('asks for input when given nothing', async () => {
    expect(await under.type('/extract')).toContain(
      'Give me an image, a file or some text to extract data from.',
    );
  });
});

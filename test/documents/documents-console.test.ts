import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { citationInstructions } from '../../src/documents/document-context.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';
import { createDocx, createScannedPdf, createTextPdf, createXlsx } from '../support/sample-documents.ts';

type ChatBody = { model: string; messages: Array<{ role: string; content: unknown }> };

let bot: ConsoleUnderTest;
beforeAll(async () => {
  bot = await startConsoleUnderTest();
});
afterAll(() => bot.close());
beforeEach(() => bot.fake.reset());

const chatBodies = () =>
  bot.fake.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : JSON.stringify(content);

function save(name: string, bytes: Uint8Array): string {
  const path = join(bot.workDirectory, name);
  writeFileSync(path, bytes);
  return path;
}

describe('documents in the terminal (/file)', () => {
  it('answers about a PDF with its pages marked, and a follow-up reads the kept text, not the file', async () => {
    const path = save(
      'report.pdf',
      await createTextPdf([['Introduction'], ['Revenue 2025', 'Total: 4,210 EUR']]),
    );
    bot.fake.enqueue({ text: 'The total is 4,210 EUR (p. 2).' });
    bot.fake.enqueue({ text: 'Page 1 is the introduction (p. 1).' });
    const printed = await bot.type(`/file ${path} what is the total?`, 'and what is on the first page?');

    expect(printed).toContain('The total is 4,210 EUR (p. 2).');
    expect(printed).toContain('Page 1 is the introduction (p. 1).');
    const [first, second] = chatBodies();
    expect(first?.messages[0]?.content).toContain(citationInstructions);
    const asked = textOf(first?.messages.at(-1)?.content);
    expect(asked).toMatch(/^ada: what is the total\?\n\n<document name="report\.pdf" type="PDF, 2 pages">/);
    expect(asked).toContain('[p. 1]\nIntroduction\n[p. 2]\nRevenue 2025\nTotal: 4,210 EUR\n</document>');
    // The follow-up carries the document again, from the store: the file was parsed once.
    expect(textOf(second?.messages[1]?.content)).toContain('Total: 4,210 EUR');
    expect(textOf(second?.messages.at(-1)?.content)).toBe('ada: and what is on the first page?');
    expect(bot.logOutput().match(/"msg":"document read"/g)).toHaveLength(1);
    const history = await bot.app.history.load('console:local:ada');
    expect(history[0]?.documents).toEqual([
      {
        name: 'report.pdf',
        documentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        description: 'PDF, 2 pages',
      },
    ]);
    expect(history[0]?.text).toBe('what is the total?');
    await bot.type('/reset');
  });

  it('Regenerate answers about the same document from the store, without reading the file again', async () => {
    const path = save('regenerate.pdf', await createTextPdf([['Only page', 'Answer: 42']]));
    bot.fake.enqueue({ text: 'It says 42.' });
    bot.fake.enqueue({ text: 'It says 42 (p. 1).' });
    const printed = await bot.type(`/file ${path} what does it say?`, '/press 1', '/reset');
    expect(printed).toContain('It says 42 (p. 1).');
    const [first, regenerated] = chatBodies();
    expect(regenerated?.messages).toHaveLength(2);
    expect(textOf(regenerated?.messages.at(-1)?.content)).toBe(textOf(first?.messages.at(-1)?.content));
    expect(bot.logOutput().match(/"document":"regenerate\.pdf"[^\n]*"msg":"document read"/g)).toHaveLength(1);
  });

  it('reads a Word document, a spreadsheet and a CSV', async () => {
    const docx = save('memo.docx', createDocx(['The launch moves to May.']));
    const xlsx = save(
      'sales.xlsx',
      await createXlsx({
        Sales: [
          ['Item', 'Units'],
          ['apples', 12],
        ],
      }),
    );
    const csv = save('people.csv', new TextEncoder().encode('name,age\nAda,36\n'));
    await bot.type(
      `/file ${docx} when is the launch?`,
      `/file ${xlsx} how many apples?`,
      `/file ${csv} how old is Ada?`,
      '/reset',
    );
    const asked = chatBodies().map((body) => textOf(body.messages.at(-1)?.content));
    expect(asked[0]).toContain('type="Word document">\nThe launch moves to May.\n</document>');
    expect(asked[1]).toContain(
      '[Sales!A1:B2]\n|  | A | B |\n|---|---|---|\n| 1 | Item | Units |\n| 2 | apples | 12 |',
    );
    expect(asked[2]).toContain('[people!A1:B2]');
  });

  it('sends a scanned PDF to the vision model as page images', async () => {
    const path = save('scan.pdf', await createScannedPdf());
    bot.fake.enqueue({ text: 'A black bar on a white page.' });
    const printed = await bot.type(`/file ${path} what does it show?`, '/reset');
    expect(printed).toContain('A black bar on a white page.');
    const body = chatBodies()[0];
    expect(body?.model).toBe('vision-model');
    const content = body?.messages.at(-1)?.content as Array<{
      type: string;
      text?: string;
      image_url?: { url: string };
    }>;
    expect(content[0]?.text).toContain('(scanned: its pages p. 1 follow as images, in order)');
    expect(content[1]?.image_url?.url).toMatch(/^data:image\/png;base64,iVBOR/);
  });

  it('says clearly when a file cannot be read, and still answers', async () => {
    const path = save('archive.bin', new Uint8Array([0, 1, 2, 3, 0, 0, 7]));
    bot.fake.enqueue({ text: 'I could not see the file.' });
    const printed = await bot.type(`/file ${path} what is this?`, '/reset');
    expect(printed).toContain('I could not see the file.');
    expect(printed).toContain(
      'I cannot read archive.bin: I read PDF, Word (.docx), Excel (.xlsx), CSV and text files.',
    );
  });
});

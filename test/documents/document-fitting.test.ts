import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';
import { createTextPdf } from '../support/sample-documents.ts';

/**
 * A document longer than the room in the context is cut at a page marker, and the person is told how
 * far it was read; the model gets the pages that fit and never a page past the cut.
 */
let bot: ConsoleUnderTest;
afterEach(() => bot.close());

type ChatBody = { messages: Array<{ role: string; content: unknown }> };
const lastAsked = () => {
  const body = bot.fake.requests.filter((request) => request.path.endsWith('/chat/completions')).at(-1)
    ?.body as ChatBody | undefined;
  const content = body?.messages.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
};

/** Twelve pages of about 600 characters each, every page naming itself. */
async function longReport(): Promise<Uint8Array> {
  const pages = Array.from({ length: 12 }, (_, index) => [
    `Chapter ${index + 1}`,
    ...Array.from({ length: 10 }, (_, line) => `Page ${index + 1} line ${line + 1}: ${'figures '.repeat(6)}`),
  ]);
  return createTextPdf(pages);
}

describe('fitting a document into the context', () => {
  it('reads a long PDF up to the page that fits under DOCUMENT_CONTEXT_MAX_CHARACTERS and says so', async () => {
    bot = await startConsoleUnderTest({ DOCUMENT_CONTEXT_MAX_CHARACTERS: '4000' });
    const path = join(bot.workDirectory, 'long-report.pdf');
    writeFileSync(path, await longReport());
    bot.fake.enqueue({ text: 'It is about figures (p. 1).' });
    const printed = await bot.type(`/file ${path} what is this about?`);

    expect(printed).toContain('It is about figures (p. 1).');
    const notice = printed.match(
      /long-report\.pdf is longer than fits in my context with this conversation, so I read it up to p\. (\d+)\./,
    );
    expect(notice).not.toBeNull();
    const lastPageRead = Number(notice?.[1]);
    expect(lastPageRead).toBeGreaterThanOrEqual(2);
    expect(lastPageRead).toBeLessThan(12);
    const asked = lastAsked();
    expect(asked).toContain(`[p. ${lastPageRead}]`);
    expect(asked).not.toContain('[p. 12]');
    expect(asked.length).toBeLessThan(4_000 + 200);
    expect(asked).toMatch(/<\/document>$/);
  });

  it('sends a document that fits whole, with no notice', async () => {
    bot = await startConsoleUnderTest({ DOCUMENT_CONTEXT_MAX_CHARACTERS: '100000' });
    const path = join(bot.workDirectory, 'long-report.pdf');
    writeFileSync(path, await longReport());
    bot.fake.enqueue({ text: 'All twelve chapters (p. 12).' });
    const printed = await bot.type(`/file ${path} how many chapters?`);
    expect(printed).not.toContain('longer than fits');
    expect(lastAsked()).toContain('[p. 12]\nChapter 12');
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appMention } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';
import { createDocx, createScannedPdf, createTextPdf, createXlsx } from '../support/sample-documents.ts';

let bot: SlackUnderTest;
beforeAll(async () => {
  bot = await startSlackUnderTest({ mode: 'http' });
});
afterAll(() => bot.close());
beforeEach(() => bot.reset());

type ChatBody = { model: string; messages: Array<{ role: string; content: unknown }> };
const chatBodies = () =>
  bot.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
const lastUserText = (body: ChatBody | undefined) => JSON.stringify(body?.messages.at(-1)?.content ?? '');

describe('documents shared on Slack', () => {
  it('reads a PDF, a Word file, a spreadsheet and a CSV, downloaded with the bot token', async () => {
    const files = [
      bot.slack.addFile({
        name: 'report.pdf',
        bytes: Buffer.from(await createTextPdf([['One'], ['Total: 99']])),
        mimetype: 'application/pdf',
      }),
      bot.slack.addFile({
        name: 'memo.docx',
        bytes: Buffer.from(createDocx(['Launch in May.'])),
        mimetype: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      }),
      bot.slack.addFile({
        name: 'sales.xlsx',
        bytes: Buffer.from(await createXlsx({ Q1: [['apples', 12]] })),
        mimetype: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      }),
      bot.slack.addFile({ name: 'people.csv', bytes: Buffer.from('name\nAda\n'), mimetype: 'text/csv' }),
    ];
    bot.gateway.enqueue({ text: 'All four read (Q1!B1).' });
    await bot.deliverEvent(appMention({ channel: 'C0DOCS0001', text: 'compare these', files }));
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );
    expect(stream.text).toBe('All four read (Q1!B1).');
    expect(bot.slack.fileDownloads.map((download) => download.isAuthorized)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const asked = lastUserText(chatBodies()[0]);
    expect(asked).toContain('[p. 2]\\nTotal: 99');
    expect(asked).toContain('Launch in May.');
    expect(asked).toContain('| 1 | apples | 12 |');
    expect(asked).toContain('[people!A1:A2]');
  });

  it('sends a scanned PDF to the vision model, and names a file it cannot read', async () => {
    const scan = bot.slack.addFile({
      name: 'scan.pdf',
      bytes: Buffer.from(await createScannedPdf()),
      mimetype: 'application/pdf',
    });
    const archive = bot.slack.addFile({
      name: 'backup.zip',
      bytes: Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000')),
      mimetype: 'application/zip',
    });
    bot.gateway.enqueue({ text: 'A scanned page.' });
    await bot.deliverEvent(
      appMention({ channel: 'C0DOCS0002', text: 'what is this?', files: [scan, archive] }),
    );
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );
    expect(chatBodies()[0]?.model).toBe('vision-model');
    expect(lastUserText(chatBodies()[0])).toContain('data:image/png;base64,');
    expect(stream.text).toBe(
      'A scanned page.\n\n_I cannot read backup.zip: I read PDF, Word (.docx), Excel (.xlsx), CSV and text files. I left it out._',
    );
  });
});

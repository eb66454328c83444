import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { slashCommand } from '../fakes/slack/index.ts';
import { startSlackUnderTest } from '../slack/slack-under-test.ts';
import { startConsoleUnderTest } from '../support/console-under-test.ts';
import { startDiscordUnderTest } from '../support/discord-under-test.ts';
import { createTextPdf } from '../support/sample-documents.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A report whose page 2 holds a small table, as text the PDF reader gives back line by line. */
const reportPdf = () =>
  createTextPdf([
    ['Quarterly report', 'See the table on page 2.'],
    ['Region  Units  Revenue', 'North  120  4,800', 'South  80  3,200'],
  ]);

/** What the model answers for "the table on page 2": the rows as they appear there. */
const extraction = {
  title: 'Units by region',
  summary: 'The table on page 2 of the quarterly report.',
  fields: [{ name: 'Source', value: 'p. 2' }],
  table: {
    columns: ['Region', 'Units', 'Revenue'],
    rows: [
      ['North', '120', '4,800'],
      ['South', '80', '3,200'],
    ],
  },
};
const expectedCsv = 'Region,Units,Revenue\r\nNorth,120,"4,800"\r\nSouth,80,"3,200"\r\n';

const promptOf = (body: unknown) => JSON.stringify((body as { messages: unknown[] }).messages);

describe('/extract --file and /summarize --file', () => {
  it('in the terminal: /extract the table on page 2 --file report.pdf writes table.csv', async () => {
    const bot = await startConsoleUnderTest();
    closers.push(() => bot.close());
    const path = join(bot.workDirectory, 'report.pdf');
    writeFileSync(path, await reportPdf());
    bot.fake.enqueue({ text: JSON.stringify(extraction) });
    const printed = await bot.type(`/extract the table on page 2 --file ${path}`);
    expect(printed).toContain('Units by region');
    const prompt = promptOf(bot.fake.requests[0]?.body);
    expect(prompt).toContain('The person asks for: the table on page 2');
    expect(prompt).toContain('[p. 2]\\nRegion Units Revenue\\nNorth 120 4,800');
    const csv = (await import('node:fs')).readFileSync(join(bot.outputDirectory, 'table.csv'), 'utf8');
    expect(csv).toBe(expectedCsv);
  });

  it('on Discord: the file is an attachment option, and the card comes with table.csv', async () => {
    const under = await startDiscordUnderTest();
    closers.push(() => under.close());
    const channel = under.discord.textChannelIds[0] ?? '';
    under.gateway.enqueue({ text: JSON.stringify(extraction) });
    under.discord.sendSlashCommand({
      name: 'extract',
      channelId: channel,
      options: { what: 'the table on page 2' },
      attachments: {
        file: { filename: 'report.pdf', contentType: 'application/pdf', bytes: await reportPdf() },
      },
    });
    const posted = await under.discord.waitFor(() =>
      under.discord
        .messages(channel)
        .find((message) => message.attachments.some((file) => file.filename === 'table.csv')),
    );
    const csv = under.discord.uploadedFiles(posted.id).find((file) => file.filename === 'table.csv');
    expect(Buffer.from(csv?.bytes ?? []).toString('utf8')).toBe(expectedCsv);
    expect(promptOf(under.gateway.requests[0]?.body)).toContain('[p. 2]');
  });

  it('on Slack: --file takes the most recent file in the channel, for /summarize and /extract', async () => {
    const bot = await startSlackUnderTest({ mode: 'http' });
    closers.push(() => bot.close());
    const file = bot.slack.addFile({
      name: 'report.pdf',
      bytes: Buffer.from(await reportPdf()),
      mimetype: 'application/pdf',
    });
    bot.slack.addMessage({
      channel: 'C0EXTRACT1',
      user: 'U0ADA00001',
      text: 'here is the report',
      files: [file],
    });
    bot.gateway.enqueue({
      text: JSON.stringify({
        title: 'Quarterly report',
        tldr: 'North sold more than South (p. 2).',
        keyPoints: ['North: 120 units (p. 2)'],
        decisions: [],
        actionItems: [],
        openQuestions: [],
      }),
    });
    await bot.deliverCommand(slashCommand({ command: '/summarize', text: '--file', channel: 'C0EXTRACT1' }));
    const card = await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0EXTRACT1')
        .find((message) => JSON.stringify(message.blocks ?? []).includes('North sold more')),
    );
    expect(JSON.stringify(card.blocks)).toContain('report.pdf (PDF, 2 pages)');
    bot.gateway.enqueue({ text: JSON.stringify(extraction) });
    await bot.deliverCommand(
      slashCommand({ command: '/extract', text: 'the table on page 2 --file', channel: 'C0EXTRACT1' }),
    );
    const upload = await bot.slack.waitFor(() =>
      bot.slack.uploadedFiles.find((uploaded) => uploaded.name === 'table.csv'),
    );
    expect(upload.bytes.toString('utf8')).toBe(expectedCsv);
    expect(promptOf(bot.gateway.requests.at(-1)?.body)).toContain('The person asks for: the table on page 2');

    // The file was parsed once for both commands: the second read came from the document store.
    expect(bot.logOutput().match(/"msg":"document read"/g)).toHaveLength(1);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import {
  createDocx,
  createManyPagePdf,
  createScannedPdf,
  createTextPdf,
  createXlsx,
} from '../support/sample-documents.ts';

let under: DiscordUnderTest;
afterEach(() => under.close());

type ChatBody = { model: string; messages: Array<{ role: string; content: unknown }> };
const chatBodies = () =>
  under.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
const lastUserText = (body: ChatBody | undefined) => JSON.stringify(body?.messages.at(-1)?.content ?? '');
const botMessages = (channelId: string) =>
  under.discord.messages(channelId).filter((message) => message.author.id === under.discord.bot.id);

describe('documents attached on Discord', () => {
  it('reads a PDF, a Word file, a spreadsheet and a CSV attached to one message', async () => {
    under = await startDiscordUnderTest();
    const channel = under.discord.textChannelIds[0] ?? '';
    under.gateway.enqueue({ text: 'All four read (p. 2).' });
    under.discord.sendUserMessage({
      channelId: channel,
      content: 'compare these',
      mentionsBot: true,
      attachments: [
        {
          filename: 'report.pdf',
          contentType: 'application/pdf',
          bytes: await createTextPdf([['One'], ['Total: 99']]),
        },
        {
          filename: 'memo.docx',
          contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          bytes: createDocx(['Launch in May.']),
        },
        {
          filename: 'sales.xlsx',
          contentType: 'application/octet-stream',
          bytes: await createXlsx({ Q1: [['apples', 12]] }),
        },
        {
          filename: 'people.csv',
          contentType: 'text/csv; charset=utf-8',
          bytes: new TextEncoder().encode('name\nAda\n'),
        },
      ],
    });
    await under.discord.waitFor(() =>
      botMessages(channel).find((message) => message.content === 'All four read (p. 2).'),
    );
    const asked = lastUserText(chatBodies()[0]);
    expect(asked).toContain('[p. 2]\\nTotal: 99');
    expect(asked).toContain('Launch in May.');
    expect(asked).toContain('[Q1!A1:B1]');
    expect(asked).toContain('[people!A1:A2]');
  });

  it('sends a scanned PDF to the vision model', async () => {
    under = await startDiscordUnderTest();
    const channel = under.discord.textChannelIds[0] ?? '';
    under.discord.sendUserMessage({
      channelId: channel,
      content: 'what is on this scan?',
      mentionsBot: true,
      attachments: [
        { filename: 'scan.pdf', contentType: 'application/pdf', bytes: await createScannedPdf() },
      ],
    });
    const body = await under.discord.waitFor(() => chatBodies()[0]);
    expect(body.model).toBe('vision-model');
    expect(lastUserText(body)).toContain('data:image/png;base64,');
  });

  it('answers another conversation while a hostile PDF is parsed, then says the PDF took too long', async () => {
    under = await startDiscordUnderTest({ DOCUMENT_MAX_PAGES: '10000', DOCUMENT_PARSE_TIMEOUT_MS: '4000' });
    const [slowChannel = '', otherChannel = ''] = [
      under.discord.textChannelIds[0],
      under.discord.createTextChannel({ name: 'other' }),
    ];
    under.gateway.setDefault({ endpoint: 'chat', text: 'Answered.' });
    under.discord.sendUserMessage({
      channelId: slowChannel,
      content: 'read all of it',
      mentionsBot: true,
      attachments: [
        {
          filename: 'endless.pdf',
          contentType: 'application/pdf',
          bytes: createManyPagePdf({ pageCount: 10_000 }),
        },
      ],
    });
    // Give the parse a head start, then talk in another channel.
    await new Promise((resolve) => setTimeout(resolve, 500));
    under.discord.sendUserMessage({ channelId: otherChannel, content: 'quick question', mentionsBot: true });
    const other = await under.discord.waitFor(
      () => botMessages(otherChannel).find((message) => message.content === 'Answered.'),
      { timeoutMs: 10_000 },
    );
    expect(
      botMessages(slowChannel).find((message) => message.content.startsWith('Answered.')),
    ).toBeUndefined();
    // Meanwhile the slow reply says what it is doing: the reading step's line, the status-line path.
    await under.discord.waitFor(
      () => botMessages(slowChannel).find((message) => message.content === '_📄 reading: endless.pdf …_'),
      { timeoutMs: 10_000 },
    );
    const slow = await under.discord.waitFor(
      () =>
        botMessages(slowChannel).find(
          (message) => message.content.startsWith('Answered.') && message.content.includes('took longer'),
        ),
      { timeoutMs: 15_000 },
    );
    expect(slow.content).toBe('Answered.\n\n_endless.pdf took longer than 4 s to read, so I left it out._');
    expect(other.id).not.toBe(slow.id);
  });
});

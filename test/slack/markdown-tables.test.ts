import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findTables, splitTrailingTable } from '../../adapters/slack/markdown-tables.ts';
import { streamableHead } from '../../adapters/slack/native-stream.ts';
import { appMention, directMessage, markdownShownRaw } from '../fakes/slack/index.ts';
import { finishedReplies } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

const table = '| Name | Age |\n|:-----|----:|\n| Ada | 36 |\n| **Bob** | 7 |';

type Block = { type: string; text?: string; rows?: Array<Array<{ type: string; text?: string }>> };

/** A table cell's text: raw_text directly, rich_text through its one section. */
function cellText(cell: { type: string; text?: string; elements?: unknown }): string | undefined {
  if (cell.type === 'raw_text') return cell.text;
  const section = (cell.elements as Array<{ elements: Array<{ text: string }> }> | undefined)?.[0];
  return section?.elements.map((element) => element.text).join('');
}

describe('slack: Markdown tables in chat replies', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http' });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('ends a chat.update reply with a table block when the reply ends with its table', async () => {
    bot.gateway.enqueue({
      text: `Here are the results:\n\n${table}`,
      chunkSize: 9,
      delayBetweenChunksMs: 20,
    });

    await bot.deliverEvent(directMessage({ channel: 'D0TABLES01', text: 'ages?' }));
    const reply = await bot.slack.waitFor(() =>
      bot.slack
        .messages('D0TABLES01')
        .find((message) => message.botId && JSON.stringify(message.blocks ?? []).includes('Regenerate')),
    );

    const blocks = reply.blocks as Block[];
    expect(blocks.map((block) => block.type)).toEqual(['markdown', 'table', 'actions', 'context_actions']);
    expect(blocks[0]?.text).toBe('Here are the results:\n\n');
    expect(blocks[1]?.rows?.map((row) => row.map(cellText))).toEqual([
      ['Name', 'Age'],
      ['Ada', '36'],
      ['Bob', '7'],
    ]);
    expect(blocks[1]).toMatchObject({ column_settings: [{ align: 'left' }, { align: 'right' }] });
    // Every chat.update on the way showed the table as something Slack renders.
    for (const call of bot.slack.callsTo('chat.update')) {
      const markdown = (call.arguments.blocks as Block[]).find((block) => block.type === 'markdown');
      expect(markdownShownRaw(markdown?.text ?? '')).toEqual([]);
    }
  });

  it('draws a table followed by more text as preformatted text, columns aligned', async () => {
    bot.gateway.enqueue({ text: `Compare:\n\n${table}\n\nBob is younger.` });

    await bot.deliverEvent(directMessage({ channel: 'D0TABLES02', text: 'compare' }));
    const reply = await bot.slack.waitFor(() =>
      bot.slack
        .messages('D0TABLES02')
        .find((message) => message.botId && JSON.stringify(message.blocks ?? []).includes('Regenerate')),
    );

    expect((reply.blocks as Block[]).map((block) => block.type)).toEqual([
      'markdown',
      'actions',
      'context_actions',
    ]);
    expect((reply.blocks as Block[])[0]?.text).toBe(
      'Compare:\n\n```\nName | Age\n-----|----\nAda  |  36\nBob  |   7\n```\n\nBob is younger.',
    );
  });

  it('streams a table natively as preformatted text once it is whole', async () => {
    bot.gateway.enqueue({ text: `Compare:\n\n${table}\n\nDone.`, chunkSize: 4, delayBetweenChunksMs: 15 });
    const mention = appMention({ channel: 'C0TABLES03', text: 'compare' });

    await bot.deliverEvent(mention);
    const [reply] = await finishedReplies(bot, 'C0TABLES03', String(mention.ts));

    expect(reply?.streamingState).toBe('completed');
    expect(reply?.text).toBe('Compare:\n\n```\nName | Age\n-----|----\nAda  |  36\nBob  |   7\n```\n\nDone.');
    expect(markdownShownRaw(bot.slack.streams[0]?.text ?? '')).toEqual([]);
  });
});

describe('slack markdown tables', () => {
  it('finds pipe tables outside code blocks only', () => {
    const text = `Intro\n${table}\n\n\`\`\`\n| not | a |\n|---|---|\n\`\`\`\n`;

    expect(findTables(text).map((found) => [found.header, found.rows.length])).toEqual([
      [['Name', 'Age'], 2],
    ]);
  });

  it('keeps a table over Slack block limits as preformatted text', () => {
    const rows = Array.from({ length: 100 }, (_, index) => `| row ${index} | x |`).join('\n');
    const big = `| a | b |\n|---|---|\n${rows}`;

    const { markdown, table: block } = splitTrailingTable(big);

    expect(block).toBeUndefined();
    expect(markdown.startsWith('```\na ')).toBe(true);
  });

  it('streams only what continues into the final text, holding a table back until it ends', () => {
    const final = `Compare:\n\n${table}\n\nDone.`;
    const heads = Array.from({ length: final.length }, (_, index) =>
      streamableHead(final.slice(0, index + 1)),
    );
    const finalForm = streamableHead(`${final}\n`).trimEnd();

    for (const head of heads) expect(finalForm.startsWith(head)).toBe(true);
    expect(heads.some((head) => head.includes('| Name'))).toBe(false);
  });
});

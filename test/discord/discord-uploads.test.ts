import { afterEach, describe, expect, it } from 'vitest';
import { isCard, textOfMessage } from '../support/discord-slash-command.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

/** An extraction whose JSON is about 9 KB and whose table is about 1 KB as CSV. */
const bigExtraction = {
  title: 'Inventory count',
  summary: 'Counted stock of the back room.',
  fields: Array.from({ length: 80 }, (_, index) => ({
    name: `Shelf ${index + 1}`,
    value: `${index * 3} boxes of assorted parts`,
  })),
  table: {
    columns: ['Item', 'Count'],
    rows: Array.from({ length: 40 }, (_, index) => [`Part ${index + 1}`, String(index)]),
  },
};

async function extract(limits: { attachmentSizeLimitBytes?: number; requestSizeLimitBytes?: number }) {
  const started = await startDiscordUnderTest({}, { fakeDiscord: limits });
  under = started;
  const general = started.discord.textChannelIds[0] ?? '';
  started.gateway.enqueue({ text: JSON.stringify(bigExtraction) });
  started.discord.sendSlashCommand({
    name: 'extract',
    channelId: general,
    options: { what: 'the stock list' },
  });
  return started.discord.waitFor(
    () => started.discord.messages(general).find((message) => isCard(message) && (message.flags & 128) === 0),
    { timeoutMs: 10_000, description: 'the extraction card' },
  );
}

describe('uploads within Discord limits', () => {
  it('leaves out a file over the per-file limit with a note, and sends the rest', async () => {
    const answer = await extract({ attachmentSizeLimitBytes: 4_000 });
    expect(answer.attachments.map((attachment) => attachment.filename)).toEqual(['table.csv']);
    expect(textOfMessage(answer)).toMatch(
      /I left out extraction\.json \(\d+ KB\): it is over the 4 KB Discord takes a file here\./,
    );
    expect(textOfMessage(answer)).toContain('### Inventory count');
    // The file that went is shown through a file component (components/reference.mdx, "File").
    expect(JSON.stringify(answer.components)).toContain('attachment://table.csv');
  });

  it('keeps the whole message within the request limit, files, card and text together', async () => {
    const answer = await extract({ requestSizeLimitBytes: 12_000 });
    expect(answer.attachments.map((attachment) => attachment.filename)).toEqual(['table.csv']);
    expect(textOfMessage(answer)).toMatch(/I left out extraction\.json .* one message may carry in all\./);
    const sent = under?.discord.requests.filter((call) => call.status === 413) ?? [];
    expect(sent).toEqual([]);
  });
});

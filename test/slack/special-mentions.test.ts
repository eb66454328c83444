import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appMention, directMessage, slashCommand } from '../fakes/slack/index.ts';
import { markdownOf } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

/** Model text full of Slack's mention syntax: each would notify people if posted as it is. */
const pingingReply =
  'Heads up <!channel> and <!here|here>: ask <!subteam^S0LEADS01|@leads> or <@U0VICTIM1>. <!everyone>, read this.';

/** What a person sees once the invisible characters that break the syntax are ignored. */
function visible(text: string | undefined): string | undefined {
  return text?.replaceAll('\u2060', '');
}

describe('slack: special mentions in what parley posts never notify anyone', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http' });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('in a native stream, even when a mention is split across two appends', async () => {
    bot.gateway.enqueue({ text: pingingReply, chunkSize: 3, delayBetweenChunksMs: 30 });
    const mention = appMention({ channel: 'C0PINGS001', text: 'make some noise' });

    await bot.deliverEvent(mention);
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    expect(bot.slack.mentions).toEqual([]);
    expect(visible(stream.text)).toBe(pingingReply);
  });

  it('in a markdown block rewritten by chat.update, and in its notification text', async () => {
    bot.gateway.enqueue({ text: pingingReply, chunkSize: 7, delayBetweenChunksMs: 20 });

    await bot.deliverEvent(directMessage({ channel: 'D0PINGS001', text: 'make some noise' }));
    const reply = await bot.slack.waitFor(() =>
      bot.slack
        .messages('D0PINGS001')
        .find((message) => message.botId && JSON.stringify(message.blocks ?? []).includes('Regenerate')),
    );

    expect(bot.slack.mentions).toEqual([]);
    expect(visible(markdownOf(reply))).toBe(pingingReply);
  });

  it('in notes built from what people supplied: a file name, a command', async () => {
    const file = bot.slack.addFile({
      name: '<!here> minutes.zip',
      // An empty zip (its end-of-central-directory record): binary, so refused with a note naming it.
      bytes: Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000')),
      mimetype: 'application/zip',
    });
    bot.gateway.enqueue({ text: 'Noted.' });
    await bot.deliverEvent(appMention({ channel: 'C0PINGS002', text: 'see the file', files: [file] }));
    const stream = await bot.slack.waitFor(() =>
      bot.slack.streams.find((entry) => entry.state === 'stopped'),
    );

    bot.gateway.enqueue({ text: 'Said.' });
    await bot.deliverCommand(
      slashCommand({ command: '/chat', text: 'say <!channel> loudly', channel: 'C0PINGS003' }),
    );
    await bot.slack.waitFor(() =>
      bot.slack
        .messages('C0PINGS003')
        .find((message) => JSON.stringify(message.blocks ?? []).includes('Regenerate')),
    );

    expect(visible(stream.text)).toContain('<!here> minutes.zip');
    // Naming the asker above a public command answer is the one mention parley means to make.
    const askerNamed = (entry: { kind: string; target?: string }) =>
      entry.kind === 'user' && entry.target === 'U0PERSON01';
    expect(bot.slack.mentions.filter((entry) => !askerNamed(entry))).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention, buttonClick, slashCommand } from '../fakes/slack/index.ts';
import { finishedReplies } from '../slack/reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';

/**
 * Memory people control, on Slack end to end (the Discord half is memory.test.ts): a real Bolt app
 * against the fake Slack keeps a note through the remember tool, /memory answers privately through
 * the command's response_url with a Forget button per note, and a Forget pressed by another member
 * is refused while the owner's own press removes the note.
 */
describe('Slack: memory', () => {
  const ada = 'U0ADA00002';
  const bob = 'U0BOB00002';
  const channel = 'C0MEMORY01';
  let bot: SlackUnderTest;
  beforeAll(async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      environment: { CHAT_MODEL: 'tools-model', MEMORY: 'user' },
      prepare: (slack) => {
        slack.addUser({ id: ada, name: 'ada' });
        slack.addUser({ id: bob, name: 'bob' });
      },
    });
  }, 30_000);
  afterAll(() => bot.close());

  type ChatBody = { tools?: Array<{ function: { name: string } }>; messages: Array<{ content: unknown }> };
  const chatBodies = () =>
    bot.gateway.requests
      .filter((request) => request.path.endsWith('/chat/completions'))
      .map((request) => request.body as ChatBody);
  const said = (from = 0) =>
    JSON.stringify([bot.slack.calls.map((call) => call.arguments), bot.slack.responseUrlPosts.slice(from)]);

  /** Runs /memory as ada and returns its private answer. */
  async function memoryListing(): Promise<unknown> {
    const seen = bot.slack.responseUrlPosts.length;
    await bot.deliverCommand(slashCommand({ command: '/memory', user: ada, channel }));
    return bot.slack.waitFor(
      () =>
        bot.slack.responseUrlPosts
          .slice(seen)
          .find((post) => /parley remembers|remembers nothing|no notes/i.test(JSON.stringify(post))),
      10_000,
    );
  }

  /** Every Block Kit button of a message: its label and action_id. */
  function buttonsIn(message: unknown): Array<{ label: string; actionId: string }> {
    const found: Array<{ label: string; actionId: string }> = [];
    const visit = (value: unknown) => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value !== null && typeof value === 'object') {
        const element = value as { type?: string; action_id?: string; text?: { text?: string } };
        if (element.type === 'button' && element.action_id) {
          found.push({ label: element.text?.text ?? '', actionId: element.action_id });
        }
        Object.values(value).forEach(visit);
      }
    };
    visit(message);
    return found;
  }

  it('keeps a note through the remember tool, lists it with Forget buttons, and lets only its owner forget it', async () => {
    bot.gateway.enqueue({ toolCalls: [{ name: 'remember', arguments: { text: 'Prefers tea to coffee.' } }] });
    bot.gateway.enqueue({ text: 'Noted: tea.' });
    const mention = appMention({ channel, user: ada, text: 'remember that I prefer tea to coffee' });
    await bot.deliverEvent(mention);
    await finishedReplies(bot, channel, String(mention.ts));
    expect(chatBodies()[0]?.tools?.map((tool) => tool.function.name)).toEqual(['remember', 'forget']);

    const listing = await memoryListing();
    expect(JSON.stringify(listing)).toContain('Prefers tea to coffee.');
    // Slack: an ephemeral response_url answer, seen only by the person who ran the command.
    expect(JSON.stringify(listing)).toContain('"response_type":"ephemeral"');
    const buttons = buttonsIn(listing);
    expect(buttons.map((button) => button.label)).toEqual([
      expect.stringMatching(/^Forget [0-9a-f]{8}$/),
      'Forget all',
    ]);
    const forgetOne = buttons[0]?.actionId ?? '';

    const beforeBob = said().length;
    await bot.deliverInteraction(
      buttonClick({ actionId: forgetOne, messageTs: '1.000002', channel, user: bob }),
    );
    await bot.slack.waitFor(
      () => /Only the person these notes are about/.test(said().slice(beforeBob)) || undefined,
      10_000,
    );
    expect(JSON.stringify(await memoryListing())).toContain('Prefers tea to coffee.');

    const beforeAda = said().length;
    await bot.deliverInteraction(
      buttonClick({ actionId: forgetOne, messageTs: '1.000002', channel, user: ada }),
    );
    await bot.slack.waitFor(() => /Forgotten: 1 note/.test(said().slice(beforeAda)) || undefined, 10_000);
    expect(JSON.stringify(await memoryListing())).not.toContain('Prefers tea to coffee.');

    bot.gateway.enqueue({ text: 'No idea.' });
    const later = appMention({ channel, user: ada, text: 'what do I drink?' });
    await bot.deliverEvent(later);
    await finishedReplies(bot, channel, String(later.ts));
    expect(String(chatBodies().at(-1)?.messages[0]?.content)).not.toContain('Prefers tea');
  }, 40_000);
});

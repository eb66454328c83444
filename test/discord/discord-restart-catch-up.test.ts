import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/discord/index.ts';
import type { FakeGateway } from '../fakes/gateway/index.ts';
import {
  type DiscordUnderTest,
  startDiscordFakes,
  startDiscordUnderTest,
} from '../support/discord-under-test.ts';

// A new process identifies afresh (events/gateway.mdx, "Resuming": only a resumed session gets
// what it missed): what was asked while no process ran is read from the watermarks the processes
// before it kept in the store.
let fakes: { discord: FakeDiscord; gateway: FakeGateway } | undefined;
let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
  await Promise.all([fakes?.discord.close(), fakes?.gateway.close()]);
  fakes = undefined;
});

const chatRequests = (gateway: FakeGateway) =>
  gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));

/** One process of the bot on the shared fakes and a store file both processes open. */
async function startProcess(storeUrl: string, maxAgeMs?: number): Promise<DiscordUnderTest> {
  if (!fakes) throw new Error('start the fakes first');
  under = await startDiscordUnderTest(
    { STORE_URL: storeUrl },
    { running: fakes, ...(maxAgeMs === undefined ? {} : { catchUpLimits: { maxAgeMs } }) },
  );
  return under;
}

async function stopProcess(subject: DiscordUnderTest): Promise<void> {
  await subject.close();
  under = undefined;
  await subject.discord.waitFor(() => subject.discord.identifiedSessionCount === 0 || undefined);
}

describe('catching up after a restart', () => {
  it('answers what was asked while no process ran, in order and once, and not what is older than the bound', async () => {
    fakes = await startDiscordFakes();
    const { discord, gateway } = fakes;
    const storeUrl = `sqlite://${join(mkdtempSync(join(tmpdir(), 'parley-restart-')), 'parley.sqlite')}`;
    const general = discord.textChannelIds[0] ?? '';
    const dm = discord.directMessageChannel();

    const first = await startProcess(storeUrl);
    gateway.enqueue({ text: 'hello in general' });
    const answeredId = discord.sendUserMessage({ channelId: general, content: 'hi', mentionsBot: true });
    await discord.waitFor(() =>
      first.botMessages(general).find((message) => message.content === 'hello in general'),
    );
    gateway.enqueue({ text: 'hello in private' });
    discord.sendUserMessage({ channelId: dm, content: 'hi there' });
    await discord.waitFor(() =>
      first.botMessages(dm).find((message) => message.content === 'hello in private'),
    );
    await stopProcess(first);

    // While no process runs: a question that will be too old, chatter, two mentions and a DM.
    const staleId = discord.sendUserMessage({
      channelId: general,
      content: 'a question from long ago',
      mentionsBot: true,
      isBotAway: true,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    discord.sendUserMessage({
      channelId: general,
      content: 'people talking among themselves',
      isBotAway: true,
    });
    const deployId = discord.sendUserMessage({
      channelId: general,
      content: 'is the deploy done?',
      mentionsBot: true,
      isBotAway: true,
    });
    const migrationId = discord.sendUserMessage({
      channelId: general,
      content: 'and the migration?',
      mentionsBot: true,
      isBotAway: true,
    });
    const directId = discord.sendUserMessage({
      channelId: dm,
      content: 'one for you in private',
      isBotAway: true,
    });

    // The two conversations are answered side by side: either may take either text.
    for (let index = 0; index < 3; index += 1) gateway.enqueue({ text: 'Answered after the restart.' });
    const second = await startProcess(storeUrl, 1_000);
    const afterRestart = () =>
      [...second.botMessages(general), ...second.botMessages(dm)].filter(
        (message) => message.content === 'Answered after the restart.',
      );
    await discord.waitFor(() => (afterRestart().length === 3 ? true : undefined), { timeoutMs: 15_000 });
    // In general, the deploy question first, then the migration; the DM's own.
    expect(
      second
        .botMessages(general)
        .filter((message) => message.content === 'Answered after the restart.')
        .map((message) => message.replyToMessageId),
    ).toEqual([deployId, migrationId]);
    expect(second.botMessages(dm).at(-1)?.replyToMessageId).toBe(directId);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Two before, three after: not the stale question, not the chatter, not the one answered before.
    expect(chatRequests(gateway)).toHaveLength(5);
    const askedAfter = JSON.stringify(
      chatRequests(gateway)
        .slice(2)
        .map((request) => request.body),
    );
    expect(askedAfter).not.toContain('a question from long ago');
    expect(askedAfter).not.toContain('people talking among themselves');
    const repliesTo = (messageId: string) =>
      second.botMessages(general).filter((message) => message.replyToMessageId === messageId);
    expect(repliesTo(staleId)).toHaveLength(0);
    expect(repliesTo(answeredId)).toHaveLength(1);
    expect(second.logOutput()).toMatch(/"handedOn":3[^\n]*caught up on messages sent while disconnected/);

    // A third start with nothing new answers nothing again.
    await stopProcess(second);
    const third = await startProcess(storeUrl);
    await discord.waitFor(() =>
      /caught up on messages sent while disconnected/.test(third.logOutput()) ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(chatRequests(gateway)).toHaveLength(5);
    expect(third.logOutput()).toMatch(/"handedOn":0[^\n]*caught up/);
  }, 60_000);
});

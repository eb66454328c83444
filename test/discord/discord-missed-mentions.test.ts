import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

// events/gateway.mdx, "Resuming": only a resumed session gets what it missed; a client that must
// identify afresh never receives the messages of the gap, so parley reads them itself.
let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

const chatRequests = (subject: DiscordUnderTest) =>
  subject.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));

/** Asks once in `channelId` and waits for the answer, so parley is active there. */
async function converseIn(subject: DiscordUnderTest, channelId: string, isDirect: boolean): Promise<void> {
  subject.gateway.enqueue({ text: `hello from ${channelId}` });
  subject.discord.sendUserMessage({ channelId, content: 'hi', mentionsBot: !isDirect });
  await subject.discord.waitFor(() =>
    subject.botMessages(channelId).find((message) => message.content === `hello from ${channelId}`),
  );
}

/** Loses the gateway session, lets `duringGap` send, and waits until the client is back. */
async function reconnectAfresh(subject: DiscordUnderTest, duringGap: () => void): Promise<void> {
  const gap = subject.discord.interruptGateway();
  await subject.discord.waitFor(() => subject.discord.identifiedSessionCount === 0);
  duringGap();
  gap.end();
  await subject.discord.waitFor(() => subject.discord.identifiedSessionCount === 1, { timeoutMs: 15_000 });
}

describe('mentions missed while Discord could not resume', () => {
  it('answers the mention and the DM sent in the gap, in order and once each, and not the chatter', async () => {
    under = await startDiscordUnderTest();
    const subject = under;
    const general = subject.generalChannelId;
    const dm = subject.discord.directMessageChannel();
    await converseIn(subject, general, false);
    await converseIn(subject, dm, true);

    // The two conversations are answered side by side: either may take either text.
    subject.gateway.enqueue({ text: 'Answered after the gap.' });
    subject.gateway.enqueue({ text: 'Answered after the gap.' });
    let mentionId = '';
    let directId = '';
    await reconnectAfresh(subject, () => {
      subject.discord.sendUserMessage({ channelId: general, content: 'people talking among themselves' });
      mentionId = subject.discord.sendUserMessage({
        channelId: general,
        content: 'is the deploy done?',
        mentionsBot: true,
      });
      directId = subject.discord.sendUserMessage({ channelId: dm, content: 'and one for you in private' });
    });

    const answer = await subject.discord.waitFor(
      () => subject.botMessages(general).find((message) => message.content === 'Answered after the gap.'),
      { timeoutMs: 15_000 },
    );
    expect(answer.replyToMessageId).toBe(mentionId);
    const direct = await subject.discord.waitFor(() =>
      subject.botMessages(dm).find((message) => message.content === 'Answered after the gap.'),
    );
    expect(direct.replyToMessageId).toBe(directId);
    // Two conversations before, two answers after: the chatter was not answered.
    expect(chatRequests(subject)).toHaveLength(4);
    const askedAfter = JSON.stringify(
      chatRequests(subject)
        .slice(2)
        .map((request) => request.body),
    );
    expect(askedAfter).toContain('is the deploy done?');
    expect(askedAfter).toContain('and one for you in private');
    expect(askedAfter).not.toContain('people talking among themselves');

    // Another fresh identify with nothing new: nothing is answered twice.
    await reconnectAfresh(subject, () => {});
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(chatRequests(subject)).toHaveLength(4);
    expect(
      subject.botMessages(general).filter((message) => message.replyToMessageId === mentionId),
    ).toHaveLength(1);
  }, 60_000);

  it('reads no further than its bounds: the oldest missed mentions of a channel, and says it was cut', async () => {
    under = await startDiscordUnderTest({}, { catchUpLimits: { messagesPerChannel: 2 } });
    const subject = under;
    const general = subject.generalChannelId;
    await converseIn(subject, general, false);
    subject.gateway.enqueue({ text: 'answer one' });
    subject.gateway.enqueue({ text: 'answer two' });
    await reconnectAfresh(subject, () => {
      for (const question of ['question one', 'question two', 'question three']) {
        subject.discord.sendUserMessage({ channelId: general, content: question, mentionsBot: true });
      }
    });
    await subject.discord.waitFor(
      () => subject.botMessages(general).find((message) => message.content === 'answer two'),
      { timeoutMs: 15_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(chatRequests(subject)).toHaveLength(3);
    expect(JSON.stringify(chatRequests(subject).map((request) => request.body))).not.toContain(
      'question three',
    );
    expect(subject.logOutput()).toMatch(/"isCut":true[^\n]*caught up on messages sent while disconnected/);
  }, 60_000);
});

import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

// An edit notifies nobody, so a slow streamed answer says it is done once: a ping of the asker
// alone (resources/message.mdx, "Allowed Mentions Object": only the ids in `users` are notified), or
// in a thread, the answer posted afresh.
let under: DiscordUnderTest | undefined;
afterEach(async () => {
  await under?.close();
  under = undefined;
});

const slowAnswer = 'This answer took a while to write, one small piece after another.';
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('slow answers people notice on Discord', () => {
  it('pings the asker once, and only them, under an answer slower than NOTIFY_AFTER_S', async () => {
    under = await startDiscordUnderTest({ NOTIFY_AFTER_S: '1' });
    const subject = under;
    const general = subject.generalChannelId;
    const bystander = subject.discord.createUser({ username: 'bystander' });
    subject.gateway.enqueue({ text: slowAnswer, chunkSize: 8, delayBetweenChunksMs: 150 });
    subject.discord.sendUserMessage({
      channelId: general,
      content: `take your time, <@${bystander.id}> is waiting too`,
      mentionsBot: true,
      mentions: [bystander.id],
    });
    const ping = await subject.discord.waitFor(
      () => subject.botMessages(general).find((message) => message.content.endsWith('your answer is ready.')),
      { timeoutMs: 10_000 },
    );
    const answer = subject.botMessages(general).find((message) => message.content === slowAnswer);
    expect(ping.content).toBe(`<@${subject.discord.user.id}> your answer is ready.`);
    expect(ping.mentionIds).toEqual([subject.discord.user.id]);
    expect(ping.replyToMessageId).toBe(answer?.id);
    // The answer itself pinged nobody.
    expect(answer?.mentionIds).toEqual([]);
    await pause(300);
    expect(subject.botMessages(general)).toHaveLength(2);
  });

  it('says nothing more after a quick answer', async () => {
    under = await startDiscordUnderTest({ NOTIFY_AFTER_S: '30' });
    const subject = under;
    const general = subject.generalChannelId;
    subject.gateway.enqueue({ text: 'Quick.' });
    subject.discord.sendUserMessage({ channelId: general, content: 'quick one', mentionsBot: true });
    await subject.discord.waitFor(() =>
      subject.botMessages(general).find((message) => message.content === 'Quick.'),
    );
    await pause(300);
    expect(subject.botMessages(general)).toHaveLength(1);
  });

  it('in a thread, with DISCORD_NOTIFY_WITH=new-message, posts the slow answer afresh in place of the edited one', async () => {
    under = await startDiscordUnderTest({
      NOTIFY_AFTER_S: '1',
      DISCORD_REPLY_MODE: 'thread',
      DISCORD_NOTIFY_WITH: 'new-message',
    });
    const subject = under;
    subject.gateway.enqueue({ text: slowAnswer, chunkSize: 8, delayBetweenChunksMs: 150 });
    subject.gateway.enqueue({ text: JSON.stringify({ title: 'A slow one' }) });
    const questionId = subject.discord.sendUserMessage({
      channelId: subject.generalChannelId,
      content: 'a question that takes a while',
      mentionsBot: true,
    });
    // The thread has the question's id; in the end it holds one message: the fresh one, never edited.
    const fresh = await subject.discord.waitFor(
      () => {
        const messages = subject.botMessages(questionId);
        return messages.length === 1 && messages[0]?.editCount === 0 && messages[0].content === slowAnswer
          ? messages[0]
          : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(JSON.stringify(fresh.components)).toContain('"label":"Regenerate"');
    expect(fresh.mentionIds).toEqual([]);
  });
});

import { type Client, Events, type Message, MessageReferenceType } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { connectClient } from './discord-client.ts';

// resources/message.mdx, "Message Reference Content Attribution", Forwards, and "Message Snapshot
// Object": a forward is a message of its own whose message_reference has type FORWARD (1) and whose
// one snapshot holds the forwarded content, without its author, frozen when it was forwarded.
describe('fake discord: forwarded messages', () => {
  let fake: FakeDiscord;
  let client: Client<true>;

  beforeAll(async () => {
    fake = await startFakeDiscord();
    client = await connectClient(fake);
  });
  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });

  function nextMessage(messageId: () => string | undefined): Promise<Message> {
    return new Promise((resolve) => {
      const listener = (message: Message) => {
        if (message.id === messageId()) {
          client.off(Events.MessageCreate, listener);
          resolve(message);
        }
      };
      client.on(Events.MessageCreate, listener);
    });
  }

  it('delivers a forward with an empty content, a FORWARD reference and the snapshot', async () => {
    const [general, random] = fake.textChannelIds as [string, string];
    const originalId = fake.sendUserMessage({
      channelId: general,
      content: 'the build is green again',
      attachments: [
        { filename: 'log.txt', contentType: 'text/plain', bytes: new TextEncoder().encode('ok') },
      ],
    });
    let forwardId: string | undefined;
    const received = nextMessage(() => forwardId);
    forwardId = fake.forwardMessage({ messageId: originalId, channelId: random });
    const forward = await received;

    expect(forward.content).toBe('');
    expect(forward.reference?.type).toBe(MessageReferenceType.Forward);
    expect(forward.reference?.messageId).toBe(originalId);
    expect(forward.reference?.channelId).toBe(general);
    expect(forward.flags.has(1 << 14)).toBe(true);
    const snapshot = forward.messageSnapshots.first();
    expect(snapshot?.content).toBe('the build is green again');
    expect(snapshot?.attachments.first()?.name).toBe('log.txt');
    expect(fake.message(forwardId)?.forward?.snapshot.content).toBe('the build is green again');
  });

  it('forwards a forward as its snapshot: nesting stops at depth 1', async () => {
    const [general, random] = fake.textChannelIds as [string, string];
    const originalId = fake.sendUserMessage({ channelId: general, content: 'first words' });
    const onceId = fake.forwardMessage({ messageId: originalId, channelId: random });
    const twiceId = fake.forwardMessage({ messageId: onceId, channelId: general });
    expect(fake.message(twiceId)?.forward).toMatchObject({
      messageId: originalId,
      snapshot: { content: 'first words' },
    });
  });
});

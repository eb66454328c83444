import { afterEach, describe, expect, it } from 'vitest';
import { appMention, type FakeSlack, slashCommand, startFakeSlack } from '../fakes/slack/index.ts';
import { type AppUnderTest, startSocketApp } from './bolt-apps.ts';

describe('fake slack: a real Bolt app in Socket Mode', () => {
  let fake: FakeSlack;
  let bolt: AppUnderTest | undefined;

  afterEach(async () => {
    await bolt?.stop();
    bolt = undefined;
    await fake.close();
  });

  function replyInThread(app: AppUnderTest['app']) {
    app.event('app_mention', async ({ event, say }) => {
      await say({ text: `socket reply to ${event.ts}`, thread_ts: event.ts });
    });
  }

  it('connects with the app token, gets hello, and acks an events_api envelope', async () => {
    fake = await startFakeSlack({ rateLimits: false });
    bolt = await startSocketApp(fake, replyInThread);
    const event = appMention({ channel: 'C0SOCKET01', text: 'over the socket' });

    const delivery = await fake.deliverEvent({ mode: 'socket', event });
    const reply = await fake.waitFor(() => fake.messages('C0SOCKET01', String(event.ts))[0]);

    expect(fake.callsTo('apps.connections.open')).toMatchObject([{ token: fake.appToken, status: 200 }]);
    expect(fake.openSocketCount()).toBe(1);
    expect(delivery.ack).toMatchObject({ envelopeId: delivery.envelopeId, type: 'events_api' });
    expect(fake.socketAcks).toHaveLength(1);
    expect(reply.text).toBe(`socket reply to ${event.ts}`);
    expect(bolt.errors).toEqual([]);
  });

  it('carries a slash command reply in the ack payload', async () => {
    fake = await startFakeSlack({ rateLimits: false });
    bolt = await startSocketApp(fake, (app) => {
      app.command('/ask', async ({ ack, command }) => {
        await ack({ text: `Thinking about ${command.text}` });
      });
    });

    const delivery = await fake.deliverSlashCommand({
      mode: 'socket',
      command: slashCommand({ command: '/ask', text: 'tides' }),
    });

    expect(delivery.ack.type).toBe('slash_commands');
    expect(delivery.ack.payload).toEqual({ text: 'Thinking about tides' });
  });

  it('reconnects after a disconnect message and keeps receiving events', async () => {
    fake = await startFakeSlack({ rateLimits: false });
    bolt = await startSocketApp(fake, replyInThread, { clientPingTimeoutMs: 300 });

    fake.disconnectSockets();
    await fake.waitFor(() => fake.socketConnections.length === 2 && fake.openSocketCount() === 1, 5_000);
    const event = appMention({ channel: 'C0SOCKET02', text: 'still there?' });
    await fake.deliverEvent({ mode: 'socket', event });

    expect(fake.socketConnections[0]?.closedAtMs).toBeDefined();
    expect(fake.callsTo('apps.connections.open')).toHaveLength(2);
    expect(await fake.waitFor(() => fake.messages('C0SOCKET02', String(event.ts))[0])).toBeDefined();
  });

  it('rejects a delivery nobody acks in time', async () => {
    fake = await startFakeSlack({ rateLimits: false, ackTimeoutMs: 200 });

    await expect(
      fake.deliverEvent({ mode: 'socket', event: appMention({ channel: 'C1', text: 'anyone?' }) }),
    ).rejects.toThrow(/no Socket Mode connection/);
  });

  it('leaves nothing listening after close', async () => {
    fake = await startFakeSlack();
    bolt = await startSocketApp(fake, () => undefined);
    await bolt.stop();
    bolt = undefined;
    const { port } = fake;
    await fake.close();

    await expect(fetch(`http://127.0.0.1:${port}/api/auth.test`, { method: 'POST' })).rejects.toThrow();
    // afterEach closes again: close must be safe to call twice.
  });
});

import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { appMention, type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';

/** Frames a raw client receives, parsed, in order. */
function collectFrames(socket: WebSocket): Record<string, unknown>[] {
  const frames: Record<string, unknown>[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  return frames;
}

describe('fake slack: the Socket Mode wire protocol, with a raw WebSocket', () => {
  let fake: FakeSlack;
  const sockets: WebSocket[] = [];

  beforeEach(async () => {
    fake = await startFakeSlack({ ackTimeoutMs: 300 });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) {
      socket.terminate();
    }
    await fake.close();
  });

  async function connect(): Promise<{ socket: WebSocket; frames: Record<string, unknown>[] }> {
    const response = await fetch(`${fake.apiUrl}apps.connections.open`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.appToken}` },
    });
    const { url } = (await response.json()) as { url: string };
    const socket = new WebSocket(url);
    sockets.push(socket);
    const frames = collectFrames(socket);
    await fake.waitFor(() => frames.length > 0);
    return { socket, frames };
  }

  it('hands out a ws:// URL for the app token only, and says hello on connect', async () => {
    const withBotToken = await fetch(`${fake.apiUrl}apps.connections.open`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.botToken}` },
    });
    expect(await withBotToken.json()).toEqual({ ok: false, error: 'not_allowed_token_type' });

    const { frames } = await connect();

    expect(fake.callsTo('apps.connections.open')[1]?.result.url).toMatch(
      /^ws:\/\/127\.0\.0\.1:\d+\/socket-mode\?ticket=/,
    );
    expect(frames[0]).toMatchObject({
      type: 'hello',
      num_connections: 1,
      connection_info: { app_id: fake.workspace.appId },
    });
  });

  it('refuses a connection without a valid ticket', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${fake.port}/socket-mode?ticket=made-up`);
    sockets.push(socket);

    const [error] = (await once(socket, 'error')) as [Error];

    expect(error.message).toMatch(/401/);
  });

  it('sends envelopes with retry fields and resolves on the matching ack', async () => {
    const { socket, frames } = await connect();
    socket.on('message', (data) => {
      const envelope = JSON.parse(data.toString()) as { envelope_id?: string };
      if (envelope.envelope_id !== undefined) {
        socket.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload: { seen: true } }));
      }
    });

    const delivery = await fake.deliverEvent({
      mode: 'socket',
      event: appMention({ channel: 'C0RAW00001', text: 'raw' }),
      eventId: 'Ev0RAW0001',
      retryNum: 2,
      retryReason: 'timeout',
    });

    expect(frames[1]).toMatchObject({
      envelope_id: delivery.envelopeId,
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: 2,
      retry_reason: 'timeout',
      payload: {
        type: 'event_callback',
        event_id: 'Ev0RAW0001',
        event: { type: 'app_mention', channel: 'C0RAW00001' },
      },
    });
    expect(delivery.ack.payload).toEqual({ seen: true });
  });

  it('rejects when the app never acks, and sends a disconnect frame on request', async () => {
    const { frames } = await connect();

    await expect(
      fake.deliverEvent({ mode: 'socket', event: appMention({ channel: 'C1', text: 'x' }) }),
    ).rejects.toThrow(/not acked within 300 ms/);
    fake.disconnectSockets('warning');
    await fake.waitFor(() => frames.some((frame) => frame.type === 'disconnect'));

    expect(frames.at(-1)).toMatchObject({ type: 'disconnect', reason: 'warning' });
  });
});

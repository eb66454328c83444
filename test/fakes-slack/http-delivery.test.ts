import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buttonClick,
  type FakeSlack,
  signSlackRequest,
  slashCommand,
  startFakeSlack,
  threadReply,
} from '../fakes/slack/index.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

describe('fake slack: HTTP deliveries on the wire', () => {
  let fake: FakeSlack;
  let server: Server;
  const received: Received[] = [];

  beforeEach(async () => {
    received.length = 0;
    server = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(parts).toString('utf8') });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake = await startFakeSlack({ signingSecret: 'wire-secret' });
    fake.appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterEach(async () => {
    await fake.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('signs the exact body and sends the retry headers', async () => {
    const event = threadReply({ channel: 'C0WIRE0001', text: 'more', threadTs: '1700000000.000001' });

    await fake.deliverEvent({ event, retryNum: 3 });

    const [request] = received;
    const timestampSec = Number(request?.headers['x-slack-request-timestamp']);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-slack-signature']).toBe(
      signSlackRequest({ signingSecret: 'wire-secret', timestampSec, body: request?.body ?? '' }),
    );
    expect(request?.headers['x-slack-retry-num']).toBe('3');
    expect(request?.headers['x-slack-retry-reason']).toBe('http_error');
    expect(JSON.parse(request?.body ?? '')).toMatchObject({
      type: 'event_callback',
      team_id: fake.workspace.teamId,
      api_app_id: fake.workspace.appId,
      event: { type: 'message', channel_type: 'channel', thread_ts: '1700000000.000001', text: 'more' },
    });
    // Slack has the message before it tells the app.
    expect(fake.messages('C0WIRE0001', '1700000000.000001')).toMatchObject([{ text: 'more' }]);
  });

  it('sends commands and actions form-encoded, with response URLs on the fake', async () => {
    await fake.deliverSlashCommand({
      command: slashCommand({ command: 'imagine', text: 'a cat --count 2' }),
    });
    await fake.deliverInteraction({
      payload: buttonClick({ actionId: 'stop', messageTs: '1700000000.000009', channel: 'C0WIRE0002' }),
    });

    const [command, action] = received;
    expect(command?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const commandForm = new URLSearchParams(command?.body);
    expect(commandForm.get('command')).toBe('/imagine');
    expect(commandForm.get('text')).toBe('a cat --count 2');
    expect(commandForm.get('response_url')).toMatch(new RegExp(`^${fake.origin}/commands/`));

    const payload = JSON.parse(new URLSearchParams(action?.body).get('payload') ?? '{}') as Record<
      string,
      unknown
    >;
    expect(payload).toMatchObject({
      type: 'block_actions',
      actions: [{ action_id: 'stop', type: 'button' }],
      container: { message_ts: '1700000000.000009', channel_id: 'C0WIRE0002' },
      response_url: expect.stringMatching(new RegExp(`^${fake.origin}/actions/`)),
    });
  });

  it('lets a response_url be used five times, then answers 404', async () => {
    await fake.deliverSlashCommand({ command: slashCommand({ command: '/help' }) });
    const responseUrl = new URLSearchParams(received[0]?.body).get('response_url') ?? '';

    const statuses: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      const response = await fetch(responseUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `post ${index}`, response_type: 'in_channel' }),
      });
      statuses.push(response.status);
    }

    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    expect(fake.responseUrlPosts).toHaveLength(6);
    expect(fake.messages('C0GENERAL1')).toHaveLength(5);
  });

  it('expires a response_url after 30 minutes', async () => {
    await fake.deliverSlashCommand({ command: slashCommand({ command: '/help', channel: 'C0EXPIRE01' }) });
    const responseUrl = new URLSearchParams(received[0]?.body).get('response_url') ?? '';
    fake.expireResponseUrls();

    const response = await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'too late' }),
    });

    expect([response.status, await response.text()]).toEqual([404, 'expired_url']);
    expect(fake.ephemeralMessages).toEqual([]);
  });
});

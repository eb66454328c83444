import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createWebClient, silentLogger, slackErrorOf } from './web-client.ts';

describe('fake slack: web api with the real WebClient', () => {
  let fake: FakeSlack;
  let client: WebClient;

  beforeAll(async () => {
    fake = await startFakeSlack({ rateLimits: false });
    client = createWebClient(fake);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('answers auth.test with the team, the bot user and the bot id', async () => {
    const result = await client.auth.test();

    expect(result).toMatchObject({
      ok: true,
      team_id: fake.workspace.teamId,
      user_id: fake.workspace.botUserId,
      bot_id: fake.workspace.botId,
    });
  });

  it('refuses a wrong token with invalid_auth and a missing one with not_authed', async () => {
    expect(await slackErrorOf(createWebClient(fake, 'xoxb-wrong').auth.test())).toBe('invalid_auth');
    const anonymous = new WebClient(undefined, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logger: silentLogger,
    });
    expect(await slackErrorOf(anonymous.auth.test())).toBe('not_authed');
    expect(
      await slackErrorOf(createWebClient(fake, fake.appToken).chat.postMessage({ channel: 'C1', text: 'x' })),
    ).toBe('not_allowed_token_type');
  });

  it('posts, replies in a thread, updates and deletes, keeping every message per channel', async () => {
    const parent = await client.chat.postMessage({ channel: 'C0CHAT0001', text: 'hello' });
    const reply = await client.chat.postMessage({
      channel: 'C0CHAT0001',
      thread_ts: parent.ts,
      text: 'first draft',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*first* draft' } }],
    });
    await client.chat.update({ channel: 'C0CHAT0001', ts: reply.ts as string, text: 'final text' });

    expect(reply.message).toMatchObject({ bot_id: fake.workspace.botId, thread_ts: parent.ts });
    expect(fake.messages('C0CHAT0001').map((message) => message.text)).toEqual(['hello', 'final text']);
    expect(fake.messages('C0CHAT0001', parent.ts)).toMatchObject([
      {
        ts: reply.ts,
        threadTs: parent.ts,
        editCount: 1,
        botId: fake.workspace.botId,
        user: fake.workspace.botUserId,
      },
    ]);
    // The form-encoded `blocks` string arrives decoded.
    expect(fake.callsTo('chat.postMessage')[1]?.arguments.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: '*first* draft' } },
    ]);

    await client.chat.delete({ channel: 'C0CHAT0001', ts: parent.ts as string });
    expect(fake.messages('C0CHAT0001').map((message) => message.ts)).toEqual([reply.ts]);
  });

  it('records every call with its arguments, result and time', async () => {
    const before = Date.now();
    await client.chat.postMessage({ channel: 'C0CHAT0002', text: 'logged' });

    expect(fake.calls).toEqual([
      {
        method: 'chat.postMessage',
        arguments: { channel: 'C0CHAT0002', text: 'logged' },
        token: fake.botToken,
        status: 200,
        result: expect.objectContaining({ ok: true, channel: 'C0CHAT0002' }),
        receivedAtMs: expect.any(Number),
      },
    ]);
    expect(fake.calls[0]?.receivedAtMs).toBeGreaterThanOrEqual(before);
  });

  it('truncates text over 40,000 characters like Slack, and refuses too many or too long blocks', async () => {
    const long = await client.chat.postMessage({ channel: 'C0CHAT0003', text: 'x'.repeat(40_010) });
    expect(fake.message('C0CHAT0003', long.ts as string)?.text).toHaveLength(40_000);

    const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
    const tooMany = Array.from({ length: 51 }, () => section('x'));
    expect(
      await slackErrorOf(client.chat.postMessage({ channel: 'C0CHAT0003', text: 't', blocks: tooMany })),
    ).toBe('invalid_blocks');
    expect(
      await slackErrorOf(
        client.chat.postMessage({ channel: 'C0CHAT0003', text: 't', blocks: [section('y'.repeat(3_001))] }),
      ),
    ).toBe('invalid_blocks');
    expect(fake.callsTo('chat.postMessage').at(-1)?.result).toMatchObject({
      error: 'invalid_blocks',
      errors: ['must be less than 3001 characters [json-pointer:/blocks/0/text/text]'],
    });
    expect(await slackErrorOf(client.chat.postMessage({ channel: 'C0CHAT0003', text: '' }))).toBe('no_text');
  });

  it('takes one table block within its limits, and refuses a second, a big one or an empty cell', async () => {
    const cell = (text: string) => ({ type: 'raw_text', text });
    const table = (rows: unknown[][]) => ({ type: 'table', rows });
    const post = (blocks: unknown[]) =>
      client.chat.postMessage({ channel: 'C0TABLE001', text: 't', blocks: blocks as never });

    await post([
      table([
        [cell('a'), cell('b')],
        [cell('1'), cell('2')],
      ]),
    ]);
    const refusals = [
      [table([[cell('a')]]), table([[cell('b')]])],
      [table(Array.from({ length: 101 }, () => [cell('x')]))],
      [table([Array.from({ length: 21 }, () => cell('x'))])],
      [table([[cell('')]])],
    ];
    for (const blocks of refusals) expect(await slackErrorOf(post(blocks))).toBe('invalid_blocks');
    expect(fake.messages('C0TABLE001')).toHaveLength(1);
  });

  it('refuses to update a message that does not exist or is not the bot’s', async () => {
    const person = fake.addMessage({ channel: 'C0CHAT0004', user: 'U0PERSON01', text: 'mine' });

    expect(await slackErrorOf(client.chat.update({ channel: 'C0CHAT0004', ts: '1.000001', text: 'x' }))).toBe(
      'message_not_found',
    );
    expect(await slackErrorOf(client.chat.update({ channel: 'C0CHAT0004', ts: person.ts, text: 'x' }))).toBe(
      'cant_update_message',
    );
  });

  it('opens a DM with conversations.open, returns the same one again, and refuses what Slack refuses', async () => {
    const first = await client.conversations.open({ users: 'U0OPENDM01' });
    expect(first).toMatchObject({ ok: true, channel: { id: expect.stringMatching(/^D/) } });
    expect(first.already_open).toBeUndefined();
    const again = await client.conversations.open({ users: 'U0OPENDM01' });
    expect(again).toMatchObject({ channel: { id: first.channel?.id }, no_op: true, already_open: true });
    const resumed = await client.conversations.open({ channel: first.channel?.id ?? '', return_im: true });
    expect(resumed.channel).toMatchObject({ id: first.channel?.id, is_im: true, user: 'U0OPENDM01' });
    fake.addUser({ id: 'U0GONE0001', isDeleted: true });
    expect(await slackErrorOf(client.conversations.open({ users: 'U0GONE0001' }))).toBe('user_disabled');
    expect(await slackErrorOf(client.conversations.open({ channel: 'C0NOTADM01' }))).toBe(
      'method_not_supported_for_channel_type',
    );
  });

  it('answers conversations.history newest first and conversations.replies with the parent first', async () => {
    const mention = fake.addMessage({ channel: 'C0CHAT0005', user: 'U0PERSON01', text: 'what is up?' });
    const reply = await client.chat.postMessage({
      channel: 'C0CHAT0005',
      thread_ts: mention.ts,
      text: 'all good',
    });
    await client.chat.postMessage({ channel: 'C0CHAT0005', text: 'later' });

    const history = await client.conversations.history({ channel: 'C0CHAT0005' });
    const replies = await client.conversations.replies({ channel: 'C0CHAT0005', ts: mention.ts });

    expect(history.messages?.map((message) => message.text)).toEqual(['later', 'what is up?']);
    expect(history.messages?.[1]).toMatchObject({ reply_count: 1, latest_reply: reply.ts });
    expect(replies.messages?.map((message) => message.ts)).toEqual([mention.ts, reply.ts]);
    expect(await slackErrorOf(client.conversations.replies({ channel: 'C0CHAT0005', ts: '1.000002' }))).toBe(
      'thread_not_found',
    );
  });

  it('pages conversations.history with a cursor', async () => {
    for (const text of ['one', 'two', 'three']) {
      fake.addMessage({ channel: 'C0CHAT0006', user: 'U0PERSON01', text });
    }

    const first = await client.conversations.history({ channel: 'C0CHAT0006', limit: 2 });
    const second = await client.conversations.history({
      channel: 'C0CHAT0006',
      limit: 2,
      cursor: first.response_metadata?.next_cursor,
    });

    expect(first.messages?.map((message) => message.text)).toEqual(['three', 'two']);
    expect(first.has_more).toBe(true);
    expect(second.messages?.map((message) => message.text)).toEqual(['one']);
    expect(second.has_more).toBe(false);
  });

  it('describes channels, DMs and users', async () => {
    fake.addUser({ id: 'U0ALICE001', name: 'alice', realName: 'Alice Example', displayName: 'Ali' });

    const channel = await client.conversations.info({ channel: 'C0CHAT0007' });
    const dm = await client.conversations.info({ channel: 'D0DIRECT01' });
    const user = await client.users.info({ user: 'U0ALICE001' });

    expect(channel.channel).toMatchObject({
      id: 'C0CHAT0007',
      is_channel: true,
      is_im: false,
      is_member: true,
    });
    expect(dm.channel).toMatchObject({ id: 'D0DIRECT01', is_im: true });
    expect(user.user).toMatchObject({
      id: 'U0ALICE001',
      name: 'alice',
      real_name: 'Alice Example',
      profile: { display_name: 'Ali' },
      is_bot: false,
      is_admin: false,
      is_owner: false,
    });
  });

  it('says who administers the workspace in users.info', async () => {
    fake.addUser({ id: 'U0ADMIN001', isAdmin: true });
    fake.addUser({ id: 'U0OWNER001', isOwner: true });

    const admin = await client.users.info({ user: 'U0ADMIN001' });
    const owner = await client.users.info({ user: 'U0OWNER001' });

    expect(admin.user).toMatchObject({ is_admin: true, is_owner: false });
    expect(owner.user).toMatchObject({ is_admin: false, is_owner: true });
  });

  it('refuses an ephemeral message to someone not in the channel, and posts to a user id as a DM', async () => {
    fake.addChannel({ id: 'C0MEMBERS1', members: ['U0PERSON01'] });

    await client.chat.postEphemeral({ channel: 'C0MEMBERS1', user: 'U0PERSON01', text: 'member' });
    expect(
      await slackErrorOf(client.chat.postEphemeral({ channel: 'C0MEMBERS1', user: 'U0STRANGER', text: 'x' })),
    ).toBe('user_not_in_channel');
    const direct = await client.chat.postMessage({ channel: 'U0STRANGER', text: 'in private' });

    expect(direct.channel).toMatch(/^D/);
    expect(fake.messages(String(direct.channel)).map((message) => message.text)).toEqual(['in private']);
  });

  it('keeps ephemeral messages apart, and forced failures answer ok:false', async () => {
    await client.chat.postEphemeral({ channel: 'C0CHAT0008', user: 'U0PERSON01', text: 'only you' });
    fake.failNext({ method: 'chat.postMessage', error: 'channel_not_found' });

    expect(await slackErrorOf(client.chat.postMessage({ channel: 'C0CHAT0008', text: 'x' }))).toBe(
      'channel_not_found',
    );
    await client.chat.postMessage({ channel: 'C0CHAT0008', text: 'second try' });
    expect(fake.ephemeralMessages).toMatchObject([
      { channel: 'C0CHAT0008', user: 'U0PERSON01', text: 'only you' },
    ]);
    expect(fake.messages('C0CHAT0008').map((message) => message.text)).toEqual(['second try']);
  });

  it('answers unknown methods with unknown_method, and JSON bodies like form ones', async () => {
    expect(await slackErrorOf(client.apiCall('chat.nonsense', {}))).toBe('unknown_method');

    const response = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fake.botToken}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify({ channel: 'C0CHAT0009', text: 'as json', blocks: [{ type: 'divider' }] }),
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, channel: 'C0CHAT0009' });
    expect(fake.messages('C0CHAT0009')[0]).toMatchObject({ text: 'as json', blocks: [{ type: 'divider' }] });
  });

  it('opens a view only for a trigger_id it issued with an interaction', async () => {
    // docs.slack.dev/reference/methods/views.open: a trigger_id comes with an interaction payload.
    await expect(
      client.views.open({
        trigger_id: '123.456.abc',
        view: { type: 'modal', title: { type: 'plain_text', text: 'Hi' }, blocks: [] },
      }),
    ).rejects.toMatchObject({ data: { error: 'invalid_trigger_id' } });
  });
});

describe('fake slack: history limits of apps outside the Slack Marketplace', () => {
  let fake: FakeSlack;
  let client: WebClient;

  beforeAll(async () => {
    fake = await startFakeSlack({ historyAccess: 'non-marketplace' });
    client = new WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logger: silentLogger,
    });
  });
  afterAll(() => fake.close());

  it('returns at most 15 messages a call, and one call a minute', async () => {
    for (let index = 0; index < 40; index += 1) {
      fake.addMessage({ channel: 'C0HISTORY9', user: 'U0PERSON01', text: `message ${index}` });
    }

    const first = await client.conversations.history({ channel: 'C0HISTORY9', limit: 200 });
    const second = await client.conversations
      .history({ channel: 'C0HISTORY9', limit: 200, cursor: first.response_metadata?.next_cursor })
      .catch((error: unknown) => error as { code?: string; retryAfter?: number });

    expect(first.messages).toHaveLength(15);
    expect(first.has_more).toBe(true);
    expect(second).toMatchObject({ code: 'slack_webapi_rate_limited_error' });
    expect((second as { retryAfter?: number }).retryAfter).toBeGreaterThan(50);
  });
});

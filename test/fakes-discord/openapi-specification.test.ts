import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Client, TextChannel } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.ts';
import { takeEveryViolation } from '../fakes/discord/specification-violations.ts';
import { connectClient } from './discord-client.ts';

describe('fake discord: every request checked against Discord’s OpenAPI specification', () => {
  let fake: FakeDiscord;
  let client: Client<true>;
  let channelId: string;

  beforeAll(async () => {
    fake = await startFakeDiscord({ rateLimits: false });
    client = await connectClient(fake);
    channelId = fake.textChannelIds[0] ?? '';
  });
  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });
  afterEach(() => fake.reset());

  function send(
    path: string,
    init: { method?: string; json?: unknown; form?: FormData } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bot ${fake.token}` };
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
    }
    return fetch(`${fake.apiUrl}/v10${path}`, {
      method: init.method ?? 'POST',
      headers,
      body: init.form ?? (init.json === undefined ? null : JSON.stringify(init.json)),
    });
  }

  it('vendors the specification unchanged at the commit its source.json names', () => {
    const source = JSON.parse(
      readFileSync(new URL('../fakes/discord/spec/source.json', import.meta.url), 'utf8'),
    ) as { commit: string; sha256: string; sizeBytes: number };
    const bytes = readFileSync(new URL('../fakes/discord/spec/openapi.json', import.meta.url));
    expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(bytes.length).toBe(source.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(source.sha256);
  });

  it('lets the real client’s messages, edits, history and typing through without a violation', async () => {
    const channel = client.channels.cache.get(channelId) as TextChannel;
    const sent = await channel.send({
      content: 'hello',
      embeds: [{ title: 'card', description: 'text', color: 0x5865f2 }],
      allowedMentions: { parse: [] },
    });
    await sent.edit({ content: 'hello again' });
    await channel.messages.fetch({ limit: 10 });
    await channel.sendTyping();
    await channel.send({ content: 'a file', files: [{ attachment: Buffer.from('hi'), name: 'hi.txt' }] });

    expect(fake.specificationViolations).toEqual([]);
    expect(fake.messages(channelId).map((message) => message.content)).toEqual(['hello again', 'a file']);
  });

  it('refuses content over the specification’s 4,000 characters with 50035 and records the request', async () => {
    const response = await send(`/channels/${channelId}/messages`, { json: { content: 'x'.repeat(4001) } });

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      message: 'Invalid Form Body',
      code: 50035,
      errors: {
        content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 4000 or fewer in length.' }] },
      },
    });
    const [violation, ...others] = fake.takeSpecificationViolations();
    expect(others).toEqual([]);
    expect(violation).toMatchObject({
      kind: 'body',
      method: 'POST',
      path: `/channels/${channelId}/messages`,
      operationId: 'create_message',
      template: '/channels/{channel_id}/messages',
      body: { content: 'x'.repeat(4001) },
      errors: [{ instancePath: '/content', keyword: 'maxLength', params: { limit: 4000 } }],
    });
    expect(fake.messages(channelId)).toEqual([]);
  });

  it('refuses a wrong type and a value outside an enum, naming each field as Discord does', async () => {
    const wrongType = await send(`/channels/${channelId}/messages`, { json: { content: 'hi', tts: 'yes' } });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.json()).toMatchObject({
      code: 50035,
      errors: { tts: { _errors: [{ code: 'SPECIFICATION_TYPE', message: 'must be boolean,null' }] } },
    });

    const wrongChoice = await send(`/channels/${channelId}/messages`, {
      json: { content: 'hi', allowed_mentions: { parse: ['everybody'] } },
    });
    expect(wrongChoice.status).toBe(400);
    expect(await wrongChoice.json()).toMatchObject({
      code: 50035,
      errors: {
        allowed_mentions: {
          parse: {
            0: {
              _errors: expect.arrayContaining([
                { code: 'BASE_TYPE_CHOICES', message: 'Value must be one of (users, roles, everyone).' },
              ]),
            },
          },
        },
      },
    });

    const recorded = fake.takeSpecificationViolations();
    expect(recorded.map((violation) => violation.errors[0]?.instancePath)).toEqual([
      '/tts',
      '/allowed_mentions',
    ]);
    expect(recorded[1]?.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ instancePath: '/allowed_mentions/parse/0', keyword: 'const' }),
      ]),
    );
    expect(fake.messages(channelId)).toEqual([]);
  });

  it('checks the payload_json of a multipart upload', async () => {
    // An attachment's `id` is the index of its `files[n]` part, a snowflake-shaped number.
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'a file', attachments: [{ id: 'first' }] }));
    form.append('files[0]', new Blob(['hi']), 'hi.txt');

    const response = await send(`/channels/${channelId}/messages`, { form });

    expect(response.status).toBe(400);
    expect(fake.takeSpecificationViolations()).toMatchObject([
      {
        operationId: 'create_message',
        body: { attachments: [{ id: 'first' }] },
        errors: [{ instancePath: '/attachments/0/id', keyword: 'pattern' }],
      },
    ]);
  });

  it('refuses query parameters the operation does not take or out of their range', async () => {
    const tooMany = await send(`/channels/${channelId}/messages?limit=500`, { method: 'GET' });
    const misspelt = await send(`/channels/${channelId}/messages?limt=5`, { method: 'GET' });

    expect([tooMany.status, misspelt.status]).toEqual([400, 400]);
    expect(fake.takeSpecificationViolations()).toMatchObject([
      { kind: 'query-parameters', query: { limit: '500' }, errors: [{ keyword: 'maximum' }] },
      { kind: 'query-parameters', query: { limt: '5' }, errors: [{ keyword: 'additionalProperties' }] },
    ]);
    const fine = await send(`/channels/${channelId}/messages?limit=50`, { method: 'GET' });
    expect(fine.status).toBe(200);
    expect(fake.specificationViolations).toEqual([]);
  });

  it('checks nothing when started with isCheckingSpecification: false (the benches)', async () => {
    const unchecked = await startFakeDiscord({ rateLimits: false, isCheckingSpecification: false });
    try {
      const misspelt = await fetch(
        `${unchecked.apiUrl}/v10/channels/${unchecked.textChannelIds[0]}/messages?limt=5`,
        { headers: { authorization: `Bot ${unchecked.token}` } },
      );
      expect(misspelt.status).toBe(200);
      expect(unchecked.specificationViolations).toEqual([]);
    } finally {
      await unchecked.close();
    }
  });

  it('answers a path the specification does not have with 404 and a method it does not take with 405', async () => {
    const unknownRoute = await send('/channels/1/messages/2/reactions-of-everyone', { method: 'GET' });
    const unknownMethod = await send('/users/@me', { method: 'DELETE' });
    const malformedId = await send('/channels/general/messages', { method: 'GET' });

    expect([unknownRoute.status, unknownMethod.status, malformedId.status]).toEqual([404, 404, 400]);
    expect(fake.takeSpecificationViolations()).toMatchObject([
      { kind: 'unknown-route', path: '/channels/1/messages/2/reactions-of-everyone' },
      { kind: 'unknown-method', template: '/users/@me' },
      { kind: 'path-parameters', errors: [{ instancePath: '/channel_id', keyword: 'pattern' }] },
    ]);
  });

  it('takes default_member_permissions as the documented string of digits (erratum of discord-api-spec#11)', async () => {
    const path = `/applications/${fake.applicationId}/guilds/${fake.guildId}/commands`;
    const command = (permissions: unknown) => [
      { name: 'settings', description: 'Change settings', default_member_permissions: permissions },
    ];

    // The spec's integer would pass too, but the fake's own rule holds to the documented string.
    const asString = await send(path, { method: 'PUT', json: command('32') });
    expect(asString.status).toBe(200);
    expect(fake.specificationViolations).toEqual([]);

    const notDigits = await send(path, { method: 'PUT', json: command('admins') });
    expect(notDigits.status).toBe(400);
    expect(fake.takeSpecificationViolations()).toMatchObject([
      {
        operationId: 'bulk_set_guild_application_commands',
        errors: [{ instancePath: '/0/default_member_permissions', keyword: 'pattern' }],
      },
    ]);
  });

  it('hands every violation to the hook that fails the test, and a taken one only once', async () => {
    await send(`/channels/${channelId}/messages`, { json: { content: 'x'.repeat(4001) } });

    const found = takeEveryViolation();
    expect(found).toHaveLength(1);
    expect(found[0]?.label).toBe(fake.origin);
    expect(found[0]?.violations).toMatchObject([{ operationId: 'create_message' }]);
    expect(takeEveryViolation()).toEqual([]);
  });
});

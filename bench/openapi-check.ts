import { checkRequest } from '../test/fakes/discord/specification-check.ts';

/**
 * `npm run bench:openapi`: what checking the fake Discord's requests against Discord's OpenAPI
 * specification costs a test file. Each test file is a fresh process, so it pays for reading the
 * spec and compiling the validators of the operations it uses once; then each request costs one
 * validation. Run in a fresh process, as a test file would.
 */
const repeats = 2_000;
const noQuery = new URLSearchParams();
const base = { query: noQuery, isMultipart: false, fileCount: 0 };
const reply = 'A streamed reply grows by a few words at each edit. '.repeat(20);

const operations = [
  {
    label: 'first request of a test file: reads the 1.2 MB spec, sets up ajv, GET /users/@me',
    request: { ...base, method: 'GET', path: '/users/@me', json: undefined },
  },
  {
    label: 'POST /channels/{id}/messages (create_message)',
    request: {
      ...base,
      method: 'POST',
      path: '/channels/1/messages',
      json: { content: reply, allowed_mentions: { parse: [] }, message_reference: { message_id: '2' } },
    },
  },
  {
    label: 'PATCH /channels/{id}/messages/{id} (update_message)',
    request: { ...base, method: 'PATCH', path: '/channels/1/messages/2', json: { content: reply } },
  },
  {
    label: 'POST /interactions/{id}/{token}/callback (create_interaction_response)',
    request: { ...base, method: 'POST', path: '/interactions/1/token/callback', json: { type: 5 } },
  },
  {
    label: 'PATCH /webhooks/{id}/{token}/messages/@original',
    request: {
      ...base,
      method: 'PATCH',
      path: '/webhooks/1/token/messages/@original',
      json: { content: reply, embeds: [{ title: 'card', description: reply, color: 1 }] },
    },
  },
  {
    label: 'PUT /applications/{id}/guilds/{id}/commands (bulk_set_guild_application_commands)',
    request: {
      ...base,
      method: 'PUT',
      path: '/applications/1/guilds/2/commands',
      json: [
        { name: 'ask', description: 'Ask', options: [{ type: 3, name: 'prompt', description: 'What' }] },
      ],
    },
  },
] as const;

const megabytes = (bytes: number) => Math.round(bytes / 1024 / 1024);
const rssBeforeMb = megabytes(process.memoryUsage().rss);
const lines: string[] = [];
let firstUseTotalMs = 0;
for (const { label, request } of operations) {
  const started = performance.now();
  const violation = checkRequest(request);
  const firstMs = performance.now() - started;
  if (violation !== undefined) {
    throw new Error(`the bench's own request is forbidden: ${label}`);
  }
  const repeatedStart = performance.now();
  for (let index = 0; index < repeats; index += 1) {
    checkRequest(request);
  }
  const eachUs = ((performance.now() - repeatedStart) / repeats) * 1000;
  firstUseTotalMs += firstMs;
  lines.push(`| ${label} | ${firstMs.toFixed(0)} ms | ${eachUs.toFixed(1)} µs |`);
}
process.stdout.write(
  [
    `| request | first use in a process (read, compile) | each later one (mean of ${repeats}) |`,
    '|---|---|---|',
    ...lines,
    `| all six, first use | ${firstUseTotalMs.toFixed(0)} ms | |`,
    `rss: ${rssBeforeMb} MB before the first request, ${megabytes(process.memoryUsage().rss)} MB after all`,
    '',
  ].join('\n'),
);

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention } from '../fakes/slack/index.ts';
import { type FakeWeb, startFakeWeb } from '../fakes/web/fake-web.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';

/**
 * Issue 34, item 8, on Slack: the access gate answers on the event's own facts (and the author's
 * directory entry, which the gate needs) before the people the message names are looked up or its
 * files and links fetched. A blocked person's mention naming three people, with a large file and a
 * link, costs parley its refusal and nothing else; the same from someone allowed is read as before.
 */
const mallory = 'U0MALLORY1';
const grace = 'U0GRACE001';
const named = ['U0NAMED0001', 'U0NAMED0002', 'U0NAMED0003'];
const channel = 'C0GATE0001';
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

let bot: SlackUnderTest;
let linkedSite: FakeWeb;

beforeAll(async () => {
  linkedSite = await startFakeWeb();
  linkedSite.setPage('/tides', { body: 'the tide table for Tuesday' });
  bot = await startSlackUnderTest({
    mode: 'http',
    environment: { ACCESS_BLOCK_USER_IDS: mallory, LINK_PRIVATE_ORIGINS: linkedSite.origin },
    prepare: (slack) => {
      slack.addUser({ id: mallory, name: 'mallory' });
      slack.addUser({ id: grace, name: 'grace' });
      for (const id of named) slack.addUser({ id, name: id.toLowerCase() });
    },
  });
  await bot.slack.waitFor(() => bot.slack.calls.find((call) => call.method === 'usergroups.list'));
}, 30_000);
afterAll(async () => {
  await bot.close();
  await linkedSite.close();
});

function mentionWithEverything(user: string) {
  const file = bot.slack.addFile({
    name: 'minutes.txt',
    bytes: Buffer.alloc(6 * 1024 * 1024, 'a'),
    mimetype: 'text/plain',
  });
  return appMention({
    channel,
    user,
    text: `ask ${named.map((id) => `<@${id}>`).join(' ')} about ${linkedSite.origin}/tides`,
    files: [file],
  });
}

const lookUpsOf = (bot: SlackUnderTest, since: number) =>
  bot.slack.calls
    .slice(since)
    .filter((call) => call.method === 'users.info')
    .map((call) => (call.arguments as { user?: string }).user);

describe('Slack: a refused message is refused before it is read', () => {
  it('looks up only the author, and downloads and fetches nothing, for a blocked person', async () => {
    const since = bot.slack.calls.length;
    await bot.deliverEvent(mentionWithEverything(mallory));
    await bot.slack.waitFor(() =>
      bot.slack.calls.slice(since).find((call) => /cannot use parley/.test(JSON.stringify(call.arguments))),
    );
    await pause(500);
    expect(lookUpsOf(bot, since).filter((user) => user !== mallory)).toEqual([]);
    expect(bot.slack.fileDownloads).toEqual([]);
    expect(linkedSite.requests).toEqual([]);
    expect(bot.gateway.requests).toEqual([]);
  });

  it('still names the people, reads the file and the link of someone allowed', async () => {
    const since = bot.slack.calls.length;
    bot.gateway.enqueue({ text: 'Read it all.' });
    await bot.deliverEvent(mentionWithEverything(grace));
    await bot.slack.waitFor(() => bot.slack.streams.find((entry) => entry.state === 'stopped'));
    expect(lookUpsOf(bot, since)).toEqual(expect.arrayContaining(named));
    // The names reached the model.
    expect(bot.slack.fileDownloads).toHaveLength(1);
    expect(linkedSite.requests.map((request) => request.path)).toContain('/tides');
    const asked = JSON.stringify(bot.gateway.requests.at(-1)?.body);
    expect(asked).toContain('@u0named0001');
  });
});

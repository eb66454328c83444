import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUser } from '../fakes/discord/index.ts';
import { makeDiscordAdmin, runDiscordConfig } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';

/**
 * Issue 34, item 6: `/forget me` removes a person, not a place. Ada and Bob talk in a channel long
 * enough for its older turns to be folded into the rolling summary; Ada also talks alone in another
 * channel. After Ada's /forget me the shared summary still holds Bob's fact and not Ada's (rewritten
 * by one held model call, which the fake gateway answers as scripted), the summary only Ada wrote
 * into is gone, and of the files she shared only the one Bob shared too is still kept.
 *
 * HISTORY_MAX_TURNS=14 makes a fold come after 4 unsummarised turns, folding all but the newest
 * exchange (summary-folding.ts): the second exchange folds the first, the third the second.
 */
type ChatBody = { messages: Array<{ role: string; content: unknown }> };

let under: DiscordUnderTest;
let ada: FakeUser;
let bob: FakeUser;
let aloneChannelId: string;
// A file store: the test reads a summary back through a namespace of its own, as a restart would.
const storeDirectory = mkdtempSync(join(tmpdir(), 'parley-forget-'));

const chatBodies = () =>
  under.gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
const systemPromptOf = (body: ChatBody | undefined) => String(body?.messages[0]?.content ?? '');
const foldCount = () =>
  under.logOutput().split('older turns folded into the conversation summary').length - 1;
const sharedFile = {
  filename: 'rota.txt',
  contentType: 'text/plain',
  bytes: Buffer.from('Rota: Bob on Fridays.'),
};
const adasFile = {
  filename: 'cats.txt',
  contentType: 'text/plain',
  bytes: Buffer.from('Tibbles likes fish.'),
};

/** Sends a message, then waits for its reply and, when one is scripted, for the fold after it. */
async function say({
  channelId,
  author,
  content,
  answer,
  foldInto,
  attachments,
}: {
  channelId: string;
  author: FakeUser;
  content: string;
  answer: string;
  foldInto?: string;
  attachments?: (typeof sharedFile)[];
}): Promise<void> {
  const foldsBefore = foldCount();
  under.gateway.enqueue({ text: answer });
  if (foldInto !== undefined) under.gateway.enqueue({ text: foldInto });
  const before = under.botMessages(channelId).length;
  under.discord.sendUserMessage({
    channelId,
    author,
    content,
    mentionsBot: true,
    ...(attachments ? { attachments } : {}),
  });
  await under.discord.waitFor(() =>
    under
      .botMessages(channelId)
      .slice(before)
      .find((message) => message.content.startsWith(answer)),
  );
  if (foldInto !== undefined) await under.discord.waitFor(() => foldCount() > foldsBefore);
}

async function forgetMe(person: FakeUser): Promise<void> {
  const channelId = under.generalChannelId;
  const before = under.botMessages(channelId).length;
  under.discord.sendSlashCommand({ name: 'forget', subcommand: 'me', channelId, user: person.id });
  const confirmation = await under.discord.waitFor(() =>
    under
      .botMessages(channelId)
      .slice(before)
      .find((message) => /cannot be undone/.test(message.content)),
  );
  const customId = /"custom_id":"(parley:data\.forget:[^"]+)"/.exec(
    JSON.stringify(confirmation.components),
  )?.[1];
  const beforePress = under.botMessages(channelId).length;
  under.discord.clickButton({ messageId: confirmation.id, customId: customId ?? '', user: person.id });
  await under.discord.waitFor(() =>
    under
      .botMessages(channelId)
      .slice(beforePress)
      .find((message) => /Done: parley no longer keeps anything about you/.test(message.content)),
  );
}

beforeAll(async () => {
  under = await startDiscordUnderTest((discord) => {
    aloneChannelId = discord.createTextChannel({ name: 'ada-alone' });
    return { HISTORY_MAX_TURNS: '14', STORE_URL: `sqlite://${join(storeDirectory, 'parley.sqlite')}` };
  });
  ada = under.discord.createUser({ username: 'ada' });
  bob = under.discord.createUser({ username: 'bob' });
}, 30_000);
afterAll(async () => {
  await under.close();
  rmSync(storeDirectory, { recursive: true, force: true });
});

describe('/forget me in a shared channel', () => {
  it('keeps what the others said in the summary and their files, and drops what was only hers', async () => {
    const general = under.generalChannelId;
    // Ada alone: her summary has one author.
    await say({ channelId: aloneChannelId, author: ada, content: 'my bike is red', answer: 'Red it is.' });
    await say({
      channelId: aloneChannelId,
      author: ada,
      content: 'here is the rota',
      answer: 'Got the rota.',
      foldInto: 'Ada said her bike is red.',
      attachments: [sharedFile],
    });
    // Ada and Bob: the shared summary has two.
    await say({
      channelId: general,
      author: ada,
      content: 'my cat is called Tibbles',
      answer: 'Hello Tibbles.',
      attachments: [adasFile],
    });
    await say({
      channelId: general,
      author: bob,
      content: 'the deploy key rotates on Fridays',
      answer: 'Noted.',
      foldInto: 'Ada said her cat is called Tibbles.',
      attachments: [sharedFile],
    });
    await say({
      channelId: general,
      author: bob,
      content: 'thanks',
      answer: 'Any time.',
      foldInto: 'Ada said her cat is called Tibbles. Bob said the deploy key rotates on Fridays.',
    });
    const generalKey = `discord:${under.discord.guildId}:${general}`;
    const documentHashOf = async (key: string, name: string) =>
      (await under.services.history.load(key))
        .flatMap((turn) => turn.documents ?? [])
        .find((document) => document.name === name)?.documentHash;
    const adasHash = await documentHashOf(generalKey, 'cats.txt');
    const sharedHash = await documentHashOf(generalKey, 'rota.txt');
    expect(adasHash).toBeDefined();
    expect(await under.app.documents.load(sharedHash ?? '')).toBeDefined();

    // Ada's own budget is spent: the rewrite is the place's upkeep, not hers, so it still happens.
    const spent = under.discord.createRole({ name: 'spent', memberIds: [ada.id] });
    const confirmation = await runDiscordConfig(under, {
      admin: makeDiscordAdmin(under),
      options: { setting: 'BUDGET_ROLE_DAILY', value: `${spent}=0` },
    });
    expect(confirmation.content).toMatch(/✅/);

    // The rewrite is the one model call /forget makes; the fake answers it as a model would.
    const requestsBefore = chatBodies().length;
    under.gateway.enqueue({ text: 'Bob said the deploy key rotates on Fridays.' });
    await forgetMe(ada);
    const forgetCalls = chatBodies().slice(requestsBefore);
    expect(forgetCalls).toHaveLength(1);
    expect(systemPromptOf(forgetCalls[0])).toContain('The person called "ada" asked to be forgotten');
    expect(String(forgetCalls[0]?.messages[1]?.content)).toContain('Tibbles');

    // What the model receives next in the shared channel: Bob's fact, not Ada's.
    const replyIndex = chatBodies().length;
    // Its four unsummarised turns are folded after the reply.
    await say({
      channelId: general,
      author: bob,
      content: 'when does the key rotate?',
      answer: 'On Fridays.',
      foldInto: 'Bob said the deploy key rotates on Fridays, and asked when it rotates.',
    });
    const nextInGeneral = systemPromptOf(chatBodies()[replyIndex]);
    expect(nextInGeneral).toContain('Bob said the deploy key rotates on Fridays.');
    expect(nextInGeneral).not.toContain('Tibbles');
    // Ada's own channel: her summary was dropped, with no model call.
    await say({
      channelId: aloneChannelId,
      author: bob,
      content: 'what is in here?',
      answer: 'Nothing yet.',
    });
    expect(systemPromptOf(chatBodies().at(-1))).not.toContain('Earlier in this conversation');
    // Bob's turn still cites the rota; Ada's cat file was hers alone.
    expect(await under.app.documents.load(sharedHash ?? '')).toBeDefined();
    expect(await under.app.documents.load(adasHash ?? '')).toBeUndefined();
  }, 60_000);

  it('drops a shared summary when it cannot be rewritten, and rewrites one kept before authors were', async () => {
    const carol = under.discord.createUser({ username: 'carol' });
    const dave = under.discord.createUser({ username: 'dave' });
    const erin = under.discord.createUser({ username: 'erin' });
    const failingChannelId = under.discord.createTextChannel({ name: 'failing' });
    const oldChannelId = under.discord.createTextChannel({ name: 'old' });
    await say({ channelId: failingChannelId, author: carol, content: 'I live at 5 Elm St', answer: 'Okay.' });
    await say({
      channelId: failingChannelId,
      author: dave,
      content: 'standup is at 9',
      answer: 'Sure.',
      foldInto: 'Carol lives at 5 Elm St.',
    });
    await say({
      channelId: failingChannelId,
      author: dave,
      content: 'thanks',
      answer: 'Welcome.',
      foldInto: 'Carol lives at 5 Elm St. Dave said standup is at 9.',
    });
    await say({ channelId: oldChannelId, author: erin, content: 'my code is 4411', answer: 'Fine.' });
    await say({
      channelId: oldChannelId,
      author: erin,
      content: 'and my plant is a fern',
      answer: 'Nice.',
      foldInto: 'Erin said her code is 4411.',
    });
    // As a summary folded before authors were recorded: by whom is unknown, so it is rewritten.
    const summaries = under.app.store.namespace('summaries');
    const oldKey = `discord:${under.discord.guildId}:${oldChannelId}`;
    const { authors: _authors, ...withoutAuthors } = await summaries.get(oldKey);
    await summaries.set(oldKey, withoutAuthors);

    const requestsBefore = chatBodies().length;
    // Not retried by the SDK: the rewrite fails at once.
    under.gateway.enqueue({ error: { status: 400 } });
    await forgetMe(carol);
    expect(chatBodies().slice(requestsBefore)).toHaveLength(1);
    expect(under.logOutput()).toContain('could not be rewritten without the person, so it was dropped');
    const replyIndex = chatBodies().length;
    // Without a summary, its six turns are folded afresh after the reply.
    await say({
      channelId: failingChannelId,
      author: dave,
      content: 'when is standup?',
      answer: 'At 9.',
      foldInto: 'Dave said standup is at 9.',
    });
    expect(systemPromptOf(chatBodies()[replyIndex])).not.toContain('Earlier in this conversation');

    under.gateway.enqueue({ text: 'Nothing is left to tell.' });
    await forgetMe(erin);
    expect(systemPromptOf(chatBodies().at(-1))).toContain('The person called "erin" asked to be forgotten');
    expect((await summaries.get(oldKey))?.text).toBe('Nothing is left to tell.');
  }, 60_000);
});

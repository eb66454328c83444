import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finishOrphanedReplies, interruptedByRestartNote } from '../../commands/finish-orphaned-replies.ts';
import type { Surface } from '../../src/delivery/surface.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createRecordingSurface, type RecordingSurface } from '../support/recording-surface.ts';
import { buildTestBot, type TestBot } from '../support/test-bot.ts';

/**
 * The in-flight journal: a reply writes where it stands as it streams, and a parley that starts after
 * a crash finishes what the dead process left. Two bots on one SQLite file stand for the process
 * before and after the restart.
 */
const apiKey = 'journal-test-key-0123456789';
let gateway: FakeGateway;
const bots: TestBot[] = [];

beforeEach(async () => {
  gateway = await startFakeGateway({ apiKey });
});
afterEach(async () => {
  await Promise.all(bots.splice(0).map((bot) => bot.close()));
  await gateway.close();
});

function startBot(storeFile?: string): TestBot {
  const bot = buildTestBot({
    gatewayBaseUrl: gateway.baseUrl,
    gatewayApiKey: apiKey,
    ...(storeFile ? { environment: { STORE_URL: `sqlite://${storeFile}` } } : {}),
  });
  bots.push(bot);
  return bot;
}

const address = { platform: 'test', channel: 'c1' };
function addressedSurface(): RecordingSurface & Surface & { actions: Map<string, string[]> } {
  const surface = createRecordingSurface({ minEditIntervalMs: 50 });
  const actions = new Map<string, string[]>();
  return Object.assign(surface, {
    address,
    actions,
    async setActions(message: { id: string }, list: ReadonlyArray<{ label: string }>) {
      actions.set(
        message.id,
        list.map((action) => action.label),
      );
    },
  });
}

describe('the journal of replies in flight', () => {
  it('notes a streaming reply as it goes, with what the platform showed, and forgets it when it ends', async () => {
    const storeFile = join(startBot().workDirectory, 'shared.sqlite');
    const bot = startBot(storeFile);
    // Another process on the same store sees the records the way a restarted parley would.
    const observer = startBot(storeFile);
    gateway.enqueue({
      text: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen',
      chunkSize: 4,
      delayBetweenChunksMs: 120,
    });
    const surface = addressedSurface();
    const replying = bot.app.engine.reply({
      turn: {
        conversationKey: 'test:w:c1',
        author: { id: 'u1', name: 'Ada' },
        actor: { id: 'u1', name: 'Ada', isAdmin: false, roleIds: [], context: 'server' as const },
        text: 'count',
        images: [],
      },
      surface,
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const [midway] = await observer.app.journal.listOrphans('test');
    expect(midway?.entry).toMatchObject({
      address,
      conversationKey: 'test:w:c1',
      turn: { authorId: 'u1', authorName: 'Ada', text: 'count' },
    });
    // Written as the message was posted; the edits since reach the record at most every 2 s, so it
    // holds a text the platform showed, which the message still starts with.
    const [shown] = midway?.entry.messages ?? [];
    const id = shown?.id ?? '';
    expect(shown?.text).toMatch(/^one/);
    expect(surface.messageTexts.get(id)?.startsWith(shown?.text ?? '?')).toBe(true);
    expect(midway?.entry.modelText.startsWith(shown?.text ?? '?')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const [later] = await observer.app.journal.listOrphans('test');
    const [laterShown] = later?.entry.messages ?? [];
    expect(laterShown?.text.length).toBeGreaterThan(shown?.text.length ?? 0);
    expect(surface.messageTexts.get(id)?.startsWith(laterShown?.text ?? '?')).toBe(true);
    await replying;
    expect(await observer.app.journal.listOrphans('test')).toEqual([]);
  });

  it('finishes a reply a dead process left: text kept, note, Regenerate, Stop gone, turn recorded as interrupted', async () => {
    const storeFile = join(startBot().workDirectory, 'shared.sqlite');
    const before = startBot(storeFile);
    const record = before.app.journal.begin({
      address,
      conversationKey: 'test:w:c1',
      turn: { authorId: 'u1', authorName: 'Ada', text: 'tell me a story' },
    });
    record.update({
      messages: [
        { id: 'm1', text: 'Once upon a time' },
        { id: 'm2', text: 'there was a' },
      ],
      modelText: 'Once upon a time there was a',
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The process dies here: the record is never ended.
    const after = startBot(storeFile);
    const surface = addressedSurface();
    surface.messageTexts.set('m1', 'Once upon a time');
    surface.messageTexts.set('m2', 'there was a');
    const { finishedCount } = await finishOrphanedReplies({
      services: after.services,
      platform: 'test',
      surfaceAt: ({ address: found }) => (found.channel === 'c1' ? surface : undefined),
    });
    expect(finishedCount).toBe(1);
    expect(surface.messageTexts.get('m2')).toBe(`there was a\n\n_${interruptedByRestartNote}_`);
    expect(surface.messageTexts.get('m1')).toBe('Once upon a time');
    expect(surface.actions.get('m1')).toEqual([]);
    expect(surface.actions.get('m2')).toEqual(['Regenerate']);
    const history = await after.app.history.load('test:w:c1');
    expect(history.map((turn) => [turn.role, turn.text, turn.isInterrupted])).toEqual([
      ['user', 'tell me a story', undefined],
      ['assistant', 'Once upon a time there was a', true],
    ]);
    // Finished once: a second start finds nothing left.
    expect(await after.app.journal.listOrphans('test')).toEqual([]);
    const again = await finishOrphanedReplies({
      services: after.services,
      platform: 'test',
      surfaceAt: () => surface,
    });
    expect(again.finishedCount).toBe(0);
  });

  it('records an orphan it can no longer reach, and leaves other platforms alone', async () => {
    const storeFile = join(startBot().workDirectory, 'shared.sqlite');
    const before = startBot(storeFile);
    before.app.journal
      .begin({
        address,
        conversationKey: 'test:w:c1',
        turn: { authorId: 'u1', authorName: 'Ada', text: 'hi' },
      })
      .update({ messages: [{ id: 'm1', text: 'Hello' }], modelText: 'Hello' });
    before.app.journal
      .begin({
        address: { platform: 'other', channel: 'x' },
        conversationKey: 'other:w:x',
        turn: { authorId: 'u2', authorName: 'Bo', text: 'yo' },
      })
      .update({ messages: [{ id: 'm9', text: 'Yo' }], modelText: 'Yo' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = startBot(storeFile);
    const { finishedCount } = await finishOrphanedReplies({
      services: after.services,
      platform: 'test',
      surfaceAt: () => undefined,
    });
    expect(finishedCount).toBe(1);
    expect((await after.app.history.load('test:w:c1')).at(-1)).toMatchObject({
      text: 'Hello',
      isInterrupted: true,
    });
    expect(await after.app.journal.listOrphans('other')).toHaveLength(1);
  });
});

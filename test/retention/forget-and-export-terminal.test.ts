import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * /export and /forget at the terminal (issue 26): the owner's data goes to a JSON file in the output
 * folder, and /forget removes it after the Forget button, with nothing asked of the model.
 */
const conversationKey = 'console:local:ada';

async function exportedFiles(under: ConsoleUnderTest): Promise<string[]> {
  const names = await readdir(under.outputDirectory).catch(() => [] as string[]);
  return names
    .filter((name) => name.startsWith('parley-data-'))
    .map((name) => join(under.outputDirectory, name));
}

describe('the terminal: /export and /forget me', () => {
  let under: ConsoleUnderTest;
  afterEach(() => under.close());

  it('/export saves what parley keeps about the owner as JSON in the output folder', async () => {
    under = await startConsoleUnderTest();
    under.fake.enqueue({ text: 'Nice to meet you, Ada.' });
    await under.type('my cat is called Miso');
    const printed = await under.type('/export');
    const [file] = await exportedFiles(under);
    expect(file).toBeDefined();
    expect(printed).toMatch(/Sent: your data/);
    const exported = JSON.parse(await readFile(file ?? '', 'utf8'));
    expect(exported.person).toEqual({ platform: 'console', userId: 'ada' });
    expect(exported.data.history).toEqual([
      {
        conversationKey,
        turns: [
          expect.objectContaining({ role: 'user', text: 'my cat is called Miso' }),
          expect.objectContaining({ role: 'assistant', text: 'Nice to meet you, Ada.' }),
        ],
      },
    ]);
    expect(exported.data['people-index']).toEqual([conversationKey]);
  });

  it('/forget me asks first, and Forget removes the turns, the replies and the index', async () => {
    under = await startConsoleUnderTest();
    under.fake.enqueue({ text: 'Noted.' });
    await under.type('my cat is called Miso');
    const requestsBefore = under.fake.requests.length;
    const topToday = async () =>
      (
        await under.services.usage.top({
          platform: 'console',
          workspace: 'local',
          kind: 'users',
          period: 'day',
          at: new Date(),
          count: 5,
        })
      ).map((entry) => entry.id);
    expect(await topToday()).toEqual(['ada']);
    const asked = await under.type('/forget me');
    expect(asked).toMatch(/cannot be undone/);
    expect(await under.services.history.load(conversationKey)).toHaveLength(2);

    const done = await under.type('/forget me', '/press 1');
    expect(done).toMatch(
      /Done: parley no longer keeps anything about you \(\d+ entries deleted, 2 of them conversation turns\)/,
    );
    expect(await under.services.history.load(conversationKey)).toEqual([]);
    expect(
      await under.app.personData.export({ person: { platform: 'console', userId: 'ada' } }),
    ).toMatchObject({
      data: { history: [], 'people-index': [], feedback: [] },
    });
    expect(under.fake.requests.length).toBe(requestsBefore);
    // Spending stays counted, without the name.
    expect(await topToday()).toEqual(['forgotten']);
  });

  it('takes what parley remembers about the person with it: /export lists the notes, /forget removes them', async () => {
    under = await startConsoleUnderTest({ CHAT_MODEL: 'tools-model', MEMORY: 'user' });
    under.fake.enqueue({ toolCalls: [{ name: 'remember', arguments: { text: 'Has a cat called Miso.' } }] });
    under.fake.enqueue({ text: 'I will remember Miso.' });
    await under.type('remember that my cat is called Miso');
    const actor = { id: 'ada', name: 'ada', roleIds: [], isAdmin: true, context: 'terminal' } as const;
    const notes = () => under.services.memory.notesOf({ actor, conversationKey, scope: 'person' });
    expect((await notes()).map((note) => note.text)).toEqual(['Has a cat called Miso.']);
    const exported = await under.app.personData.export({ person: { platform: 'console', userId: 'ada' } });
    expect(JSON.stringify(exported)).toContain('Has a cat called Miso.');
    await under.type('/forget me', '/press 1');
    expect(await notes()).toEqual([]);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCommand } from '../../commands/all-commands.ts';
import type { CommandResult } from '../../commands/define-command.ts';
import { runCommand } from '../../commands/run-command.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';
import { createRecordingSurface } from '../support/recording-surface.ts';

let under: ConsoleUnderTest;
beforeEach(async () => {
  under = await startConsoleUnderTest();
});
afterEach(() => under.close());

type ChatBody = { model: string; messages: Array<{ role: string; content: unknown }> };
const chatBodies = () =>
  under.fake.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
const conversationKey = 'console:local:ada';

describe('/model and /system', () => {
  it('shows, sets, validates and resets the conversation model', async () => {
    expect(await under.type('/model')).toContain('This conversation uses **chat-model** (the default).');
    expect(await under.type('/model gpt-nonexistent')).toContain(
      "I don't know the model `gpt-nonexistent`. Choose one of:",
    );
    expect(await under.type('/model vision-model')).toContain(
      'ada switched this conversation to **vision-model**.',
    );
    await under.type('hello');
    expect(chatBodies().at(-1)?.model).toBe('vision-model');
    await under.type('/model default', 'hello again');
    expect(chatBodies().at(-1)?.model).toBe('chat-model');
  });

  it('shows and sets the system prompt the next reply uses', async () => {
    expect(await under.type('/system')).toContain('The default system prompt:');
    await under.type('/system You are a pirate. Always say arr.', 'hi');
    expect(chatBodies().at(-1)?.messages[0]).toEqual({
      role: 'system',
      content: 'You are a pirate. Always say arr.',
    });
    expect(await under.type('/system')).toContain(
      "This conversation's system prompt:\n> You are a pirate. Always say arr.",
    );
    await under.type('/system --reset', 'hi');
    expect(String(chatBodies().at(-1)?.messages[0]?.content)).toMatch(/^You are parley/);
  });

  it('lets only admins (or listed users and roles) change settings when so configured', async () => {
    const sent: CommandResult[] = [];
    const responder = {
      surface: createRecordingSurface({ minEditIntervalMs: 0 }),
      progress: async () => undefined,
      send: async (result: CommandResult) => {
        sent.push(result);
      },
    };
    const command = findCommand('model');
    if (!command) throw new Error('model command missing');
    const member = {
      id: 'u-member',
      name: 'Member',
      isAdmin: false,
      roleIds: ['r-1'],
      context: 'server' as const,
    };
    await runCommand({
      command,
      rawOptions: { name: 'vision-model' },
      conversationKey,
      user: member,
      responder,
      services: under.services,
      readRecentMessages: async () => [],
    });
    expect(sent[0]).toEqual({ text: 'Only admins can change the model here.', isPrivate: true });
    expect(await under.services.settings.get(conversationKey)).toEqual({});

    const withRole = await startConsoleUnderTest({ SETTINGS_EDITOR_ROLE_IDS: 'r-1' });
    try {
      await runCommand({
        command,
        rawOptions: { name: 'vision-model' },
        conversationKey,
        user: member,
        responder,
        services: withRole.services,
        readRecentMessages: async () => [],
      });
      expect(await withRole.services.settings.get(conversationKey)).toEqual({ model: 'vision-model' });
    } finally {
      await withRole.close();
    }
  });
});

describe('/reset, /usage, /help', () => {
  it('/reset forgets history, model and system prompt', async () => {
    await under.type('remember this', '/model vision-model', '/reset');
    expect(await under.app.history.load(conversationKey)).toEqual([]);
    expect(await under.services.settings.get(conversationKey)).toEqual({});
  });

  it('/usage reports the tokens the gateway counted, for the person and the conversation', async () => {
    under.fake.enqueue({ text: 'ok', usage: { prompt_tokens: 1200, completion_tokens: 34 } });
    await under.type('count me');
    const printed = await under.type('/usage');
    // chat-model costs 1 a million tokens in and 2 a million out (test/support/test-bot.ts).
    expect(printed).toContain('**You, today**\n0.001268 spent, 1,234 tokens (1,200 in, 34 out), 1 requests');
    expect(printed).toContain('**This conversation, this month**\n0.001268 spent, 1,234 tokens');
    expect(printed).toContain('**Budgets here**\nNo budget applies here.');
  });

  it('/help lists every command with how to type it', async () => {
    const printed = await under.type('/help');
    for (const name of [
      'chat',
      'imagine',
      'summarize',
      'extract',
      'model',
      'system',
      'reset',
      'usage',
      'config',
      'help',
    ]) {
      expect(printed).toContain(`\`/${name}`);
    }
    expect(printed).toContain('/press <number>');
    // How to chat is the terminal's own: no mentions or DMs here, and how to write several lines.
    expect(printed).not.toMatch(/mention|DM me/i);
    expect(printed).toContain('end a line with `\\` and go on in the next');
  });

  it('an unknown command says so', async () => {
    expect(await under.type('/dance')).toContain('Unknown command /dance. Type /help for the list.');
  });
});

describe('chat actions', () => {
  it('/chat answers through the engine like a plain message', async () => {
    under.fake.enqueue({ text: 'Hello from chat.' });
    expect(await under.type('/chat hi there')).toContain('Hello from chat.');
    expect(chatBodies()[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'ada: hi there' });
  });

  it('Regenerate replaces the last reply in history instead of adding one', async () => {
    under.fake.enqueue({ text: 'First try.' });
    under.fake.enqueue({ text: 'Second try.' });
    const printed = await under.type('tell me a joke', '/press 1');
    expect(printed).toContain('First try.');
    expect(printed).toContain('Second try.');
    const [first, second] = chatBodies();
    expect(second?.messages).toEqual(first?.messages);
    const history = await under.app.history.load(conversationKey);
    expect(history.map((turn) => turn.text)).toEqual(['tell me a joke', 'Second try.']);
  });

  it('offers Continue when the token limit cut the reply, and continues', async () => {
    under.fake.enqueue({ text: 'The story begins', finishReason: 'length' });
    under.fake.enqueue({ text: ' and ends.' });
    const printed = await under.type('write a story', '/press 2');
    expect(printed).toContain('_⚠ the reply hit the length limit and stops here_');
    expect(chatBodies()[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content:
        'ada: Please continue your previous answer exactly where it stopped, without repeating anything.',
    });
    expect(printed).toContain(' and ends.');
  });

  it('a button whose payload is gone says it expired', async () => {
    const sent: CommandResult[] = [];
    const { runAction } = await import('../../commands/run-action.ts');
    await runAction({
      actionId: 'parley:chat.regenerate:missing-token',
      user: { id: 'ada', name: 'ada', isAdmin: true, roleIds: [], context: 'server' as const },
      responder: {
        surface: createRecordingSurface(),
        progress: async () => undefined,
        send: async (result) => {
          sent.push(result);
        },
      },
      services: under.services,
      signal: new AbortController().signal,
    });
    expect(sent).toEqual([{ text: 'This button has expired. Please ask again.', isPrivate: true }]);
  });
});

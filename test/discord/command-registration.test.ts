import { describe, expect, it } from 'vitest';
import {
  discordCommandBodies,
  toDiscordCommand,
  toDiscordMessageCommand,
} from '../../adapters/discord/command-registration.ts';
import { choiceOption, textOption } from '../../commands/command-options.ts';
import { defineCommand } from '../../commands/define-command.ts';
import { findCommandProblems, findScopeProblems } from '../fakes/discord/command-validation.ts';

describe('Discord command registration', () => {
  it('gives Discord every command of commands/ and every message action in a shape it takes', () => {
    const body = discordCommandBodies();
    expect(body.flatMap((command) => findCommandProblems({ ...command }))).toEqual([]);
    expect(findScopeProblems(body.map((command) => ({ ...command })))).toEqual([]);
    expect(body.filter((command) => command.type === 3).map((command) => command.name)).toEqual([
      'Ask parley about this',
      'Summarize from here',
      'Extract data',
    ]);
  });

  it('offers /chat, /imagine, /summarize and the message actions to a person’s own install, everywhere', () => {
    const body = discordCommandBodies();
    const anywhere = body.filter((command) => command.integration_types?.includes(1));
    expect(anywhere.map((command) => command.name).sort()).toEqual(
      ['Ask parley about this', 'Extract data', 'Summarize from here', 'chat', 'imagine', 'summarize'].sort(),
    );
    for (const command of anywhere) expect(command.contexts).toEqual([0, 1, 2]);
    // An admin command stays with the server's install, where its permissions mean something.
    const config = body.find((command) => command.name === 'config');
    expect(config).toMatchObject({ integration_types: [0], contexts: [0, 1] });
  });

  it('would refuse a message command with a description, a 33-character name or an unknown context', () => {
    const base = toDiscordMessageCommand({ kind: 'ask', name: 'Ask parley about this', description: '' });
    expect(findCommandProblems({ ...base, description: 'not allowed' })).not.toEqual([]);
    expect(findCommandProblems({ ...base, name: 'x'.repeat(33) })).not.toEqual([]);
    expect(findCommandProblems({ ...base, contexts: [3] })).not.toEqual([]);
    expect(findCommandProblems({ ...base, integration_types: [2] })).not.toEqual([]);
    // Only 15 message commands fit one scope; 16 are refused.
    const sixteen = Array.from({ length: 16 }, (_, index) => ({ ...base, name: `Action ${index}` }));
    expect(findScopeProblems(sixteen)).not.toEqual([]);
  });

  it('keeps within the rules whatever a command declares', () => {
    const sprawling = defineCommand({
      name: 'sprawl',
      description: `A command whose description goes on ${'and on '.repeat(30)}`,
      options: {
        style: choiceOption({
          description: 'A style',
          choices: [
            `a-choice-whose-name-is-far-too-long-${'x'.repeat(100)}`,
            ...Array.from({ length: 30 }, (_, index) => `style-${index}`),
          ],
        }),
        topic: textOption({ description: 'What about', isRequired: true, maxLength: 10_000 }),
      },
      runsInConversationOrder: false,
      async run() {},
    });
    const command = toDiscordCommand(sprawling);
    expect(findCommandProblems({ ...command })).toEqual([]);
    expect(command.options?.map((option) => option.name)).toEqual(['topic', 'style']);
  });
});

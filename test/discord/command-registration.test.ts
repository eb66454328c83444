import { describe, expect, it } from 'vitest';
import { toDiscordCommand } from '../../adapters/discord/command-registration.ts';
import { allCommands } from '../../commands/all-commands.ts';
import { choiceOption, textOption } from '../../commands/command-options.ts';
import { defineCommand } from '../../commands/define-command.ts';
import { findCommandProblems, findScopeProblems } from '../fakes/discord/command-validation.ts';

describe('Discord command registration', () => {
  it('gives Discord every command of commands/ in a shape it takes', () => {
    const body = allCommands.map(toDiscordCommand);
    expect(body.flatMap((command) => findCommandProblems({ ...command }))).toEqual([]);
    expect(findScopeProblems(body.map((command) => ({ ...command })))).toEqual([]);
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

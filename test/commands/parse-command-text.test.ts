import { describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/all-commands.ts';
import { parseCommandInput } from '../../commands/command-options.ts';
import { imagineCommand } from '../../commands/definitions/imagine.ts';
import { resetCommand } from '../../commands/definitions/reset.ts';
import { systemCommand } from '../../commands/definitions/system.ts';
import { titleCommand } from '../../commands/definitions/title.ts';
import { describeUsage, parseCommandText } from '../../commands/parse-command-text.ts';

describe('parseCommandText', () => {
  it('reads free text and flags, by name, dash-name and alias', () => {
    expect(
      parseCommandText(imagineCommand.options, 'a cat in a hat --count 2 --ar 16:9 --format=jpg'),
    ).toEqual({
      prompt: 'a cat in a hat',
      count: '2',
      aspect_ratio: '16:9',
      format: 'jpg',
    });
    expect(parseCommandText(imagineCommand.options, '--aspect-ratio 4:3 a fox')).toEqual({
      aspect_ratio: '4:3',
      prompt: 'a fox',
    });
  });

  it('accepts an em dash for --, quoted values, and boolean switches', () => {
    expect(parseCommandText(imagineCommand.options, 'a boat —n 3')).toEqual({ prompt: 'a boat', count: '3' });
    expect(parseCommandText(systemCommand.options, '--reset')).toEqual({ reset: 'true' });
    expect(parseCommandText(imagineCommand.options, 'x --aspect_ratio "16:9"')).toEqual({
      prompt: 'x',
      aspect_ratio: '16:9',
    });
  });

  it('keeps line breaks in free text and leaves dashes inside words alone', () => {
    expect(parseCommandText(systemCommand.options, 'Be brief.\nUse well-known words -- always.')).toEqual({
      prompt: 'Be brief.\nUse well-known words -- always.',
    });
  });

  it('keeps an escaped dash-word in the free text', () => {
    expect(parseCommandText(imagineCommand.options, 'a logo \\--no-text --count 2')).toEqual({
      prompt: 'a logo --no-text',
      count: '2',
    });
  });
});

const problemsOf = (options: Parameters<typeof parseCommandText>[0], text: string) => {
  const parsed = parseCommandInput(options, parseCommandText(options, text));
  return parsed.isValid ? [] : parsed.problems;
};

describe('flags a person typed wrong', () => {
  it('an unknown flag is an error naming the known ones, not part of the prompt', () => {
    expect(problemsOf(imagineCommand.options, 'a logo --no-text --count 2')).toEqual([
      '--no-text is not a flag of this command; its flags are --count (or --n), --aspect-ratio (or --ar), --format, --reference (or --ref). To write --no-text in the text, type \\--no-text',
    ]);
  });

  it('--n two says it must be a whole number, naming the flag typed', () => {
    expect(problemsOf(imagineCommand.options, 'a boat --n two')).toEqual([
      '--n must be a whole number from 1 to 4',
    ]);
    expect(problemsOf(imagineCommand.options, 'a boat --count 2.5')).toEqual([
      '--count must be a whole number from 1 to 4',
    ]);
    expect(problemsOf(imagineCommand.options, 'a boat —ar wide')).toEqual([
      '—ar must be one of 1:1, 16:9, 9:16, 4:3, 3:4, 3:2, 2:3, 21:9',
    ]);
  });

  it('a flag without its value says so', () => {
    expect(problemsOf(imagineCommand.options, 'a boat --n')).toEqual(['--n needs a value']);
  });

  it('a command that takes no text says so in words', () => {
    expect(problemsOf(resetCommand.options, 'everything please')).toEqual([
      'this command takes no text (you wrote "everything please")',
    ]);
  });

  it('a required text that is missing is named by its name', () => {
    expect(problemsOf(imagineCommand.options, '--n 2')).toEqual(['prompt is required']);
  });
});

describe('one spelling per option (issue 23)', () => {
  it('/title takes its words as the title, as its usage says', () => {
    expect(problemsOf(titleCommand.options, 'Release plan')).toEqual([]);
    expect(parseCommandText(titleCommand.options, 'Release plan')).toEqual({ title: 'Release plan' });
    expect(describeUsage('title', titleCommand.options)).toBe('/title [title]');
  });

  it('no short flag means two things across commands', () => {
    const optionsByFlag = new Map<string, Set<string>>();
    for (const command of allCommands) {
      for (const [name, option] of Object.entries(command.options)) {
        for (const flag of [name, ...(option.aliases ?? [])]) {
          optionsByFlag.set(flag, (optionsByFlag.get(flag) ?? new Set()).add(name));
        }
      }
    }
    const ambiguous = [...optionsByFlag].filter(([, names]) => names.size > 1).map(([flag]) => flag);
    expect(ambiguous).toEqual([]);
  });
});

describe('describeUsage', () => {
  it('shows how to type a command', () => {
    expect(describeUsage('imagine', imagineCommand.options)).toBe(
      '/imagine <prompt> [--count 1–4] [--aspect-ratio 1:1|16:9|9:16|4:3|3:4|3:2|2:3|21:9] [--format png|jpg] [--reference image]',
    );
  });
});

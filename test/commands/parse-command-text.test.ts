import { describe, expect, it } from 'vitest';
import { imagineCommand } from '../../commands/definitions/imagine.ts';
import { systemCommand } from '../../commands/definitions/system.ts';
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

  it('leaves dashes that name no option in the free text', () => {
    expect(parseCommandText(imagineCommand.options, 'a logo --no-text --count 2')).toEqual({
      prompt: 'a logo --no-text',
      count: '2',
    });
  });
});

describe('describeUsage', () => {
  it('shows how to type a command', () => {
    expect(describeUsage('imagine', imagineCommand.options)).toBe(
      '/imagine <prompt> [--n 1–4] [--ar 1:1|16:9|9:16|4:3|3:4|3:2|2:3|21:9] [--f png|jpg] [--ref image]',
    );
  });
});

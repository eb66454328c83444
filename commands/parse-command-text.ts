import { flagOf, type ParsedCommandText, strayTextKey, typedFlags } from './command-flags.ts';
import type { CommandOptions } from './command-options.ts';

/**
 * Reads `/command free text --flag value --other=value --switch` (Slack and the terminal) into raw
 * option values by name. Free text keeps its line breaks; flag values may be quoted; `—flag` counts as
 * `--flag`, because phones and macOS turn `--` into an em dash. A `--word` that names no option is
 * kept under the key `--word`, for validation to refuse with the list of flags; `\--word` is text.
 * A flag other than a switch given without a value gets the empty string.
 */
export function parseCommandText(options: CommandOptions, text: string): ParsedCommandText {
  const namesByFlag = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    namesByFlag.set(name.toLowerCase(), name);
    namesByFlag.set(name.toLowerCase().replaceAll('_', '-'), name);
    for (const alias of option.aliases ?? []) namesByFlag.set(alias.toLowerCase(), name);
  }
  const values: ParsedCommandText = {};
  const flagsTyped: Record<string, string> = {};
  const removedSpans: Array<[number, number]> = [];
  const flagPattern = /(?<=^|\s)(--|—)([a-zA-Z][\w-]*)(?:=("[^"]*"|'[^']*'|\S*))?/g;
  for (let match = flagPattern.exec(text); match !== null; match = flagPattern.exec(text)) {
    const typed = `${match[1]}${match[2]}`;
    const name = namesByFlag.get((match[2] ?? '').toLowerCase());
    let end = match.index + match[0].length;
    removedSpans.push([match.index, end]);
    if (name === undefined) {
      values[`--${match[2]}`] = typed;
      continue;
    }
    let value = match[3] === undefined ? undefined : unquote(match[3]);
    if (value === undefined && options[name]?.kind !== 'boolean') {
      const next = /^\s+("[^"]*"|'[^']*'|[^\s"']\S*)/.exec(text.slice(end));
      if (next?.[1] && !/^(--|—)[a-zA-Z]/.test(next[1])) {
        value = unquote(next[1]);
        end += next[0].length;
        removedSpans[removedSpans.length - 1] = [match.index, end];
      }
    }
    values[name] = value ?? (options[name]?.kind === 'boolean' ? 'true' : '');
    flagsTyped[name] = typed;
    flagPattern.lastIndex = end;
  }
  // Not enumerable: it is about the options, not one of them, and logs and comparisons leave it out.
  Object.defineProperty(values, typedFlags, { value: flagsTyped, enumerable: false });
  let freeText = removeSpans(text, removedSpans)
    .replace(/(^|\s)\\(--|—)/g, '$1$2')
    .trim();
  // Positional options take the leading words, in the order they are declared.
  for (const [name, option] of Object.entries(options)) {
    if (!option.isPositional || values[name] !== undefined || freeText === '') continue;
    const word = /^\S+\s*/.exec(freeText)?.[0] ?? '';
    values[name] = word.trim();
    // The rest keeps its line breaks, as free text does.
    freeText = freeText.slice(word.length);
  }
  const freeTextOption = Object.entries(options).find(([, option]) => option.isFreeText)?.[0];
  if (freeText !== '' && freeTextOption && values[freeTextOption] === undefined)
    values[freeTextOption] = freeText;
  else if (freeText !== '' && !freeTextOption) values[strayTextKey] = freeText;
  return values;
}

function unquote(value: string): string {
  return /^(["']).*\1$/s.test(value) ? value.slice(1, -1) : value;
}

function removeSpans(text: string, spans: ReadonlyArray<[number, number]>): string {
  let result = '';
  let position = 0;
  for (const [start, end] of spans) {
    result += text.slice(position, start);
    position = end;
  }
  return (result + text.slice(position)).replace(/[ \t]{2,}/g, ' ');
}

/** One line that shows how to type a command, e.g. `/imagine <prompt> [--count 1–4] [--aspect-ratio 1:1|16:9]`. */
export function describeUsage(name: string, options: CommandOptions): string {
  const parts = [`/${name}`];
  for (const [optionName, option] of Object.entries(options)) {
    // One spelling everywhere (help, hints, README): the option's own name; short aliases still work.
    const flag = flagOf(optionName);
    const shape =
      option.kind === 'choice'
        ? (option.choices ?? []).join('|')
        : option.kind === 'integer'
          ? `${option.minValue}–${option.maxValue}`
          : option.kind === 'boolean'
            ? ''
            : option.kind === 'image' || option.kind === 'file'
              ? option.kind
              : option.kind === 'user'
                ? '@person'
                : optionName;
    if (option.kind === 'subcommand') parts.push(`<${Object.keys(option.subcommands ?? {}).join('|')}>`);
    else if (option.isFreeText || option.isPositional)
      parts.push(option.isRequired ? `<${optionName}>` : `[${optionName}]`);
    else parts.push(`[${flag}${shape ? ` ${shape}` : ''}]`);
  }
  return parts.join(' ');
}

import type { CommandOptions } from './command-options.ts';

/**
 * Reads `/command free text --flag value --other=value --switch` (Slack and the terminal) into raw
 * option values by name. Only the command's own option names and aliases are flags, so a prompt may
 * say `--verbose` or `--no-text`. Free text keeps its line breaks; flag values may be quoted; `—flag`
 * counts as `--flag`, because phones and macOS turn `--` into an em dash.
 */
export function parseCommandText(options: CommandOptions, text: string): Record<string, string> {
  const namesByFlag = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    namesByFlag.set(name.toLowerCase(), name);
    namesByFlag.set(name.toLowerCase().replaceAll('_', '-'), name);
    for (const alias of option.aliases ?? []) namesByFlag.set(alias.toLowerCase(), name);
  }
  const values: Record<string, string> = {};
  const removedSpans: Array<[number, number]> = [];
  const flagPattern = /(?<=^|\s)(?:--|—)([a-zA-Z][\w-]*)(?:=("[^"]*"|'[^']*'|\S*))?/g;
  for (let match = flagPattern.exec(text); match !== null; match = flagPattern.exec(text)) {
    const flag = (match[1] ?? '').toLowerCase();
    const name = namesByFlag.get(flag);
    if (name === undefined) continue;
    let end = match.index + match[0].length;
    let value = match[2] === undefined ? undefined : unquote(match[2]);
    if (value === undefined && options[name]?.kind !== 'boolean') {
      const next = /^\s+("[^"]*"|'[^']*'|[^\s"']\S*)/.exec(text.slice(end));
      if (next?.[1] && !/^(--|—)[a-zA-Z]/.test(next[1])) {
        value = unquote(next[1]);
        end += next[0].length;
      }
    }
    values[name] = value ?? 'true';
    removedSpans.push([match.index, end]);
    flagPattern.lastIndex = end;
  }
  const freeText = removeSpans(text, removedSpans).trim();
  const freeTextOption = Object.entries(options).find(([, option]) => option.isFreeText)?.[0];
  if (freeText !== '' && freeTextOption && values[freeTextOption] === undefined)
    values[freeTextOption] = freeText;
  else if (freeText !== '' && !freeTextOption) values['(text)'] = freeText;
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

/** One line that shows how to type a command, e.g. `/imagine <prompt> [--count 1–4] [--ar 1:1|16:9]`. */
export function describeUsage(name: string, options: CommandOptions): string {
  const parts = [`/${name}`];
  for (const [optionName, option] of Object.entries(options)) {
    const flag = `--${option.aliases?.[0] ?? optionName}`;
    const shape =
      option.kind === 'choice'
        ? (option.choices ?? []).join('|')
        : option.kind === 'integer'
          ? `${option.minValue}–${option.maxValue}`
          : option.kind === 'boolean'
            ? ''
            : option.kind === 'image' || option.kind === 'file'
              ? option.kind
              : optionName;
    if (option.isFreeText) parts.push(option.isRequired ? `<${optionName}>` : `[${optionName}]`);
    else parts.push(`[${flag}${shape ? ` ${shape}` : ''}]`);
  }
  return parts.join(' ');
}

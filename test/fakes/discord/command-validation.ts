import type { FieldProblem } from './discord-api-error.ts';
import { characterCount } from './message-limits.ts';

// Every rule below is from interactions/application-commands.mdx: "Application Command Naming",
// "Application Command Structure", "Application Command Option Structure", "Application Command
// Option Choice Structure", the 8,000-character warning under "Slash Commands", and the command
// counts under "Registering a Command".

/** The limits of application commands, written once. */
export const commandLimits = {
  nameCharacters: 32,
  descriptionCharacters: 100,
  optionsPerLevel: 25,
  choicesPerOption: 25,
  choiceNameCharacters: 100,
  choiceValueCharacters: 100,
  maxLengthCeiling: 6000,
  /** Names, descriptions and choice values of a command and everything in it, together. */
  totalCharacters: 8000,
  /** CHAT_INPUT commands per scope (global, or one guild). */
  chatInputCommandsPerScope: 100,
  userOrMessageCommandsPerScope: 15,
} as const;

const commandTypes = { chatInput: 1, user: 2, message: 3 } as const;
const optionTypes = { subcommand: 1, subcommandGroup: 2, string: 3, integer: 4, number: 10, attachment: 11 };
const choiceTypes = new Set([optionTypes.string, optionTypes.integer, optionTypes.number]);
/** "Application Command Naming", for CHAT_INPUT commands and every option. */
const namePattern = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

type Fields = Record<string, unknown>;
type Path = (string | number)[];

function problem(path: Path, code: string, message: string): FieldProblem {
  return { path, error: { code, message } };
}

function lengthProblem(path: Path, value: unknown, min: number, max: number): FieldProblem[] {
  const length = typeof value === 'string' ? characterCount(value) : -1;
  return length >= min && length <= max
    ? []
    : [problem(path, 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`)];
}

/** A CHAT_INPUT name (or an option's): the pattern, and lower case wherever a letter has one. */
function nameProblems(path: Path, name: unknown): FieldProblem[] {
  return typeof name === 'string' && namePattern.test(name) && name === name.toLowerCase()
    ? []
    : [problem(path, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid')];
}

/** Every rule one command of a bulk overwrite or a create breaks; empty when Discord takes it. */
export function findCommandProblems(command: Fields, path: Path = []): FieldProblem[] {
  const type = command.type ?? commandTypes.chatInput;
  if (type !== commandTypes.chatInput) {
    // USER and MESSAGE commands: 1-32 characters of any case, and an empty description.
    return [
      ...installationProblems(path, command),
      ...lengthProblem([...path, 'name'], command.name, 1, commandLimits.nameCharacters),
      ...(command.description === undefined || command.description === ''
        ? []
        : [problem([...path, 'description'], 'APPLICATION_COMMAND_DESCRIPTION_INVALID', 'Must be empty.')]),
    ];
  }
  const problems = [
    ...nameProblems([...path, 'name'], command.name),
    ...lengthProblem([...path, 'description'], command.description, 1, commandLimits.descriptionCharacters),
    ...optionListProblems([...path, 'options'], command.options),
    ...defaultPermissionProblems([...path, 'default_member_permissions'], command.default_member_permissions),
    ...installationProblems(path, command),
    ...nestingProblems([...path, 'options'], command.options, 'command'),
  ];
  if (problems.length === 0 && countedCharacters(command) > commandLimits.totalCharacters) {
    problems.push(
      problem(
        path,
        'APPLICATION_COMMAND_TOO_LARGE',
        `Command exceeds maximum size (${commandLimits.totalCharacters})`,
      ),
    );
  }
  return problems;
}

// "Application Command Structure": `integration_types` is a list of application integration types
// (resources/application.mdx: 0 GUILD_INSTALL, 1 USER_INSTALL) and `contexts` a list of interaction
// context types (receiving-and-responding.mdx: 0 GUILD, 1 BOT_DM, 2 PRIVATE_CHANNEL).
function installationProblems(path: Path, command: Fields): FieldProblem[] {
  const isListOf = (value: unknown, allowed: readonly number[]) =>
    value === undefined ||
    value === null ||
    (Array.isArray(value) && value.length > 0 && value.every((item) => allowed.includes(Number(item))));
  return [
    ...(isListOf(command.integration_types, [0, 1])
      ? []
      : [problem([...path, 'integration_types'], 'BASE_TYPE_CHOICES', 'Value must be one of (0, 1).')]),
    ...(isListOf(command.contexts, [0, 1, 2])
      ? []
      : [problem([...path, 'contexts'], 'BASE_TYPE_CHOICES', 'Value must be one of (0, 1, 2).')]),
  ];
}

// "Application Command Structure": default_member_permissions is a ?string, a bit set of permissions
// "serialized as a string" ("Application Command Permissions Object").
function defaultPermissionProblems(path: Path, value: unknown): FieldProblem[] {
  if (value === undefined || value === null || (typeof value === 'string' && /^\d+$/.test(value))) return [];
  return [problem(path, 'BASE_TYPE_BAD_TYPE', 'Must be a permission bit set written as a string of digits.')];
}

// "Application Command Option Structure", options: in a SUB_COMMAND they are its parameters, in a
// SUB_COMMAND_GROUP its subcommands; and "Subcommands and Subcommand Groups": a command with
// subcommands cannot be used bare, so its top level holds subcommands (or groups) only.
function nestingProblems(
  path: Path,
  options: unknown,
  level: 'command' | 'group' | 'subcommand',
): FieldProblem[] {
  if (!Array.isArray(options)) return [];
  const types = (options as Fields[]).map((option) => Number(option.type));
  const nestedCount = types.filter(
    (type) => type === optionTypes.subcommand || type === optionTypes.subcommandGroup,
  ).length;
  const problems: FieldProblem[] = [];
  const isMixed = nestedCount > 0 && nestedCount < types.length;
  const isMisplaced =
    (level === 'subcommand' && nestedCount > 0) ||
    (level === 'group' && types.some((type) => type !== optionTypes.subcommand));
  if (isMixed || isMisplaced) {
    problems.push(
      problem(path, 'APPLICATION_COMMAND_OPTION_TYPE_INVALID', 'Subcommands cannot sit beside options here.'),
    );
  }
  for (const [index, option] of (options as Fields[]).entries()) {
    const type = Number(option.type);
    if (type === optionTypes.subcommand || type === optionTypes.subcommandGroup) {
      const inner = type === optionTypes.subcommand ? 'subcommand' : 'group';
      problems.push(...nestingProblems([...path, index, 'options'], option.options, inner));
    }
  }
  return problems;
}

function optionListProblems(path: Path, options: unknown): FieldProblem[] {
  if (options === undefined || options === null) return [];
  if (!Array.isArray(options)) return [problem(path, 'BASE_TYPE_ARRAY', 'Must be an array.')];
  const problems: FieldProblem[] = [];
  if (options.length > commandLimits.optionsPerLevel) {
    problems.push(
      problem(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${commandLimits.optionsPerLevel} or fewer in length.`),
    );
  }
  const names = new Set<string>();
  let hasOptional = false;
  for (const [index, option] of (options as Fields[]).entries()) {
    const optionPath = [...path, index];
    if (names.has(String(option.name))) {
      problems.push(
        problem(
          [...optionPath, 'name'],
          'APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS',
          'Option names must be unique',
        ),
      );
    }
    names.add(String(option.name));
    const isNested = option.type === optionTypes.subcommand || option.type === optionTypes.subcommandGroup;
    // "Required options must be listed before optional options".
    if (!isNested && option.required === true && hasOptional) {
      problems.push(
        problem(
          optionPath,
          'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
          'Required options must be placed before non-required options',
        ),
      );
    }
    hasOptional ||= !isNested && option.required !== true;
    problems.push(...optionProblems(optionPath, option, isNested));
  }
  return problems;
}

function optionProblems(path: Path, option: Fields, isNested: boolean): FieldProblem[] {
  const type = Number(option.type);
  const problems = [
    ...(Number.isInteger(type) && type >= 1 && type <= optionTypes.attachment
      ? []
      : [problem([...path, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of the option types.')]),
    ...nameProblems([...path, 'name'], option.name),
    ...lengthProblem([...path, 'description'], option.description, 1, commandLimits.descriptionCharacters),
    ...(isNested ? optionListProblems([...path, 'options'], option.options) : []),
    ...choiceProblems(path, option, type),
  ];
  for (const [field, min] of [
    ['min_length', 0],
    ['max_length', 1],
  ] as const) {
    const value = option[field];
    if (
      value !== undefined &&
      (typeof value !== 'number' || value < min || value > commandLimits.maxLengthCeiling)
    ) {
      problems.push(problem([...path, field], 'NUMBER_TYPE_MIN_MAX', `Must be between ${min} and 6000.`));
    }
  }
  return problems;
}

function choiceProblems(path: Path, option: Fields, type: number): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { choices, autocomplete } = option;
  if (autocomplete === true && !choiceTypes.has(type)) {
    problems.push(
      problem(
        [...path, 'autocomplete'],
        'APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_INVALID',
        'Autocomplete is only for string, integer and number options',
      ),
    );
  }
  if (choices === undefined || choices === null) return problems;
  if (!Array.isArray(choices) || !choiceTypes.has(type)) {
    return [
      ...problems,
      problem(
        [...path, 'choices'],
        'APPLICATION_COMMAND_OPTION_CHOICES_INVALID',
        'Choices are only for string, integer and number options',
      ),
    ];
  }
  // "autocomplete may not be set to true if choices are present".
  if (autocomplete === true && choices.length > 0) {
    problems.push(
      problem(
        [...path, 'autocomplete'],
        'APPLICATION_COMMAND_AUTOCOMPLETE_WITH_CHOICES',
        'Autocomplete cannot be used with choices',
      ),
    );
  }
  if (choices.length > commandLimits.choicesPerOption) {
    problems.push(
      problem(
        [...path, 'choices'],
        'BASE_TYPE_MAX_LENGTH',
        `Must be ${commandLimits.choicesPerOption} or fewer in length.`,
      ),
    );
  }
  for (const [index, choice] of (choices as Fields[]).entries()) {
    problems.push(
      ...lengthProblem(
        [...path, 'choices', index, 'name'],
        choice.name,
        1,
        commandLimits.choiceNameCharacters,
      ),
    );
    const value = choice.value;
    const isValueValid =
      type === optionTypes.string
        ? typeof value === 'string' && characterCount(value) <= commandLimits.choiceValueCharacters
        : typeof value === 'number' && (type !== optionTypes.integer || Number.isInteger(value));
    if (!isValueValid) {
      problems.push(
        problem(
          [...path, 'choices', index, 'value'],
          'BASE_TYPE_BAD_TYPE',
          'Value does not fit the option type.',
        ),
      );
    }
  }
  return problems;
}

/** The characters counted towards the 8,000: names, descriptions and choice values, all levels. */
function countedCharacters(fields: Fields): number {
  const text = (value: unknown) =>
    typeof value === 'string' ? characterCount(value) : String(value ?? '').length;
  let total = text(fields.name) + text(fields.description);
  for (const choice of (Array.isArray(fields.choices) ? fields.choices : []) as Fields[]) {
    total += text(choice.name) + text(choice.value);
  }
  for (const option of (Array.isArray(fields.options) ? fields.options : []) as Fields[]) {
    total += countedCharacters(option);
  }
  return total;
}

/** The rules of a whole scope after a bulk overwrite: unique names per type, and the counts. */
export function findScopeProblems(commands: readonly Fields[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const counts = new Map<number, number>();
  for (const [index, command] of commands.entries()) {
    const type = Number(command.type ?? commandTypes.chatInput);
    const key = `${type}:${String(command.name)}`;
    if (seen.has(key)) {
      problems.push(
        problem(
          [index, 'name'],
          'APPLICATION_COMMAND_ALREADY_EXISTS',
          'Application command names must be unique',
        ),
      );
    }
    seen.add(key);
    counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  const chatInputCount = counts.get(commandTypes.chatInput) ?? 0;
  const otherCounts = [counts.get(commandTypes.user) ?? 0, counts.get(commandTypes.message) ?? 0];
  if (
    chatInputCount > commandLimits.chatInputCommandsPerScope ||
    otherCounts.some((count) => count > commandLimits.userOrMessageCommandsPerScope)
  ) {
    problems.push(
      problem([], 'APPLICATION_COMMANDS_TOO_MANY', 'Maximum number of application commands reached'),
    );
  }
  return problems;
}

/**
 * What an autocomplete result (callback type 8) breaks: at most 25 choices
 * (interactions/receiving-and-responding.mdx, "Autocomplete": "autocomplete choices (max of 25
 * choices)"), each a choice as "Application Command Option Choice Structure" has it: a name of
 * 1–100 characters and a string value of at most 100 (the fake's options that autocomplete are
 * strings).
 */
export function findAutocompleteProblems(data: Fields | undefined): FieldProblem[] {
  const choices = data?.choices;
  if (!Array.isArray(choices)) {
    return [problem(['data', 'choices'], 'BASE_TYPE_REQUIRED', 'This field is required')];
  }
  const problems: FieldProblem[] =
    choices.length > commandLimits.choicesPerOption
      ? [
          problem(
            ['data', 'choices'],
            'BASE_TYPE_MAX_LENGTH',
            `Must be ${commandLimits.choicesPerOption} or fewer in length.`,
          ),
        ]
      : [];
  for (const [index, choice] of (choices as Fields[]).entries()) {
    problems.push(
      ...lengthProblem(
        ['data', 'choices', index, 'name'],
        choice.name,
        1,
        commandLimits.choiceNameCharacters,
      ),
      ...lengthProblem(
        ['data', 'choices', index, 'value'],
        choice.value,
        0,
        commandLimits.choiceValueCharacters,
      ),
    );
  }
  return problems;
}

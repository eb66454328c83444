import { z } from 'zod';
import type { NamedTool } from '../src/administration/tool-suggestions.ts';
import type { DocumentAttachment, ImageAttachment } from '../src/conversation/turn.ts';
import { bareId } from '../src/environment/spend-access-values.ts';
import { flagOf, type ParsedCommandText, strayTextKey, typedFlags } from './command-flags.ts';

/**
 * A command option, declared once: the zod schema that validates it, and what each platform needs to
 * show it (Discord option type, choices, limits, autocomplete; Slack `--flag` names).
 */
export interface CommandOption<Value = unknown> {
  readonly kind: 'text' | 'integer' | 'boolean' | 'choice' | 'image' | 'file' | 'user' | 'subcommand';
  readonly description: string;
  readonly isRequired: boolean;
  /** Validates and converts the raw platform value (a string from Slack text, a typed value from Discord). */
  readonly schema: z.ZodType<Value>;
  readonly choices?: readonly string[];
  readonly minValue?: number;
  readonly maxValue?: number;
  readonly maxLength?: number;
  /** Short aliases for `--flag` syntax on Slack and the terminal, e.g. `ar` for `aspect_ratio`. */
  readonly aliases?: readonly string[];
  /** The option that takes the free text of `/command free text --flag value`. */
  readonly isFreeText?: boolean;
  /** Suggestions as the person types (Discord autocomplete). */
  readonly suggest?: (context: SuggestContext) => readonly string[];
  /**
   * Takes the next word of the command text (Slack, terminal), before the free text, in the order
   * the options are declared: `/config set BUDGET_USER_DAILY 2.50`.
   */
  readonly isPositional?: boolean;
  /** For a subcommand option: each subcommand, and the names of the options it takes. */
  readonly subcommands?: Readonly<Record<string, Subcommand>>;
}

/** One subcommand: Discord shows it as its own entry with its own options. */
export interface Subcommand {
  readonly description: string;
  readonly optionNames: readonly string[];
}

/**
 * What a suggestion knows: what is typed so far, the models, the tools parley has now, and the
 * other options filled in.
 */
export interface SuggestContext {
  readonly typed: string;
  readonly models: readonly string[];
  readonly tools: readonly NamedTool[];
  readonly others?: Readonly<Record<string, unknown>>;
}

/** A raw value as a platform hands it over, before validation. */
export type RawOptionValue = string | number | boolean | ImageAttachment | DocumentAttachment;

const imageAttachmentSchema = z.custom<ImageAttachment>(
  (value) =>
    typeof value === 'object' && value !== null && typeof (value as ImageAttachment).load === 'function',
  { error: 'must be an image attachment' },
);

export function textOption<IsRequired extends boolean = false>(options: {
  description: string;
  isRequired?: IsRequired;
  maxLength?: number;
  isFreeText?: boolean;
  isPositional?: boolean;
  aliases?: readonly string[];
  suggest?: CommandOption['suggest'];
}): CommandOption<IsRequired extends true ? string : string | undefined> {
  const maxLength = options.maxLength ?? 4_000;
  const schema = z
    .string({ error: 'must be text' })
    .trim()
    .min(1, 'cannot be empty')
    .max(maxLength, `must be at most ${maxLength} characters`);
  return {
    kind: 'text',
    description: options.description,
    isRequired: options.isRequired ?? false,
    schema: (options.isRequired ? schema : schema.optional()) as unknown as z.ZodType<
      IsRequired extends true ? string : string | undefined
    >,
    maxLength,
    ...(options.isFreeText ? { isFreeText: true } : {}),
    ...(options.isPositional ? { isPositional: true } : {}),
    ...(options.aliases ? { aliases: options.aliases } : {}),
    ...(options.suggest ? { suggest: options.suggest } : {}),
  };
}

/**
 * A person: Discord's user picker; on Slack and the terminal a mention (`<@U…>`) or an id. The value
 * is the bare id.
 */
export function userOption(options: {
  description: string;
  aliases?: readonly string[];
}): CommandOption<string | undefined> {
  const schema = z
    .string({ error: 'must be a person (a mention or an id)' })
    .transform((value) => bareId(value.replace(/^@/, '')))
    .pipe(z.string().regex(/^[A-Za-z0-9]{2,40}$/, 'must be a person (a mention or an id)'));
  return {
    kind: 'user',
    description: options.description,
    isRequired: false,
    schema: schema.optional(),
    ...(options.aliases ? { aliases: options.aliases } : {}),
  };
}

/**
 * Which subcommand: Discord subcommands, or the first word of the text elsewhere (`/config show`).
 * Leaving it out is allowed; the command decides what that means.
 */
export function subcommandOption<Name extends string>(options: {
  description: string;
  subcommands: Readonly<Record<Name, Subcommand>>;
}): CommandOption<Name | undefined> {
  const names = Object.keys(options.subcommands) as [Name, ...Name[]];
  return {
    kind: 'subcommand',
    description: options.description,
    isRequired: false,
    schema: z
      .string()
      .transform((value) => value.trim().toLowerCase())
      .pipe(z.enum(names, { error: `must be one of ${names.join(', ')}` }))
      .optional() as unknown as z.ZodType<Name | undefined>,
    isPositional: true,
    subcommands: options.subcommands,
  };
}

export function integerOption<Default extends number | undefined = undefined>(options: {
  description: string;
  minValue: number;
  maxValue: number;
  defaultValue?: Default;
  aliases?: readonly string[];
}): CommandOption<Default extends number ? number : number | undefined> {
  const { minValue, maxValue } = options;
  const range = `a whole number from ${minValue} to ${maxValue}`;
  const base = z.coerce
    .number({ error: `must be ${range}` })
    .int(`must be ${range}`)
    .min(minValue, `must be ${range}`)
    .max(maxValue, `must be ${range}`);
  return {
    kind: 'integer',
    description: options.description,
    isRequired: false,
    schema: (options.defaultValue === undefined
      ? base.optional()
      : base.default(options.defaultValue)) as unknown as z.ZodType<
      Default extends number ? number : number | undefined
    >,
    minValue,
    maxValue,
    ...(options.aliases ? { aliases: options.aliases } : {}),
  };
}

export function choiceOption<Choice extends string, Default extends Choice | undefined = undefined>(options: {
  description: string;
  choices: readonly [Choice, ...Choice[]];
  defaultValue?: Default;
  aliases?: readonly string[];
}): CommandOption<Default extends Choice ? Choice : Choice | undefined> {
  const base = z.enum(options.choices as unknown as [Choice, ...Choice[]], {
    error: `must be one of ${options.choices.join(', ')}`,
  });
  return {
    kind: 'choice',
    description: options.description,
    isRequired: false,
    schema: (options.defaultValue === undefined
      ? base.optional()
      : base.default(options.defaultValue as never)) as unknown as z.ZodType<
      Default extends Choice ? Choice : Choice | undefined
    >,
    choices: options.choices,
    ...(options.aliases ? { aliases: options.aliases } : {}),
  };
}

export function booleanOption(options: {
  description: string;
  aliases?: readonly string[];
}): CommandOption<boolean> {
  // Slack and the terminal pass `--flag` (true) or `--flag no`; Discord passes a real boolean.
  const schema = z.preprocess(
    (value) => {
      if (typeof value !== 'string') return value;
      const word = value.trim().toLowerCase();
      if (['true', 'yes', 'on', '1'].includes(word)) return true;
      if (['false', 'no', 'off', '0'].includes(word)) return false;
      return value;
    },
    z.boolean({ error: 'must be yes or no' }),
  );
  return {
    kind: 'boolean',
    description: options.description,
    isRequired: false,
    schema: schema.optional().transform((value) => value ?? false) as unknown as z.ZodType<boolean>,
    ...(options.aliases ? { aliases: options.aliases } : {}),
  };
}

export function imageOption(options: {
  description: string;
  aliases?: readonly string[];
}): CommandOption<ImageAttachment | undefined> {
  return {
    kind: 'image',
    description: options.description,
    isRequired: false,
    schema: imageAttachmentSchema.optional(),
    ...(options.aliases ? { aliases: options.aliases } : {}),
  };
}

const documentAttachmentSchema = z.custom<DocumentAttachment>(
  (value) =>
    typeof value === 'object' && value !== null && typeof (value as DocumentAttachment).load === 'function',
  { error: 'must be a file' },
);

/** A document (PDF, Word, Excel, CSV, text): an attachment on Discord, the latest file on Slack, a path in the terminal. */
export function fileOption(options: {
  description: string;
  aliases?: readonly string[];
}): CommandOption<DocumentAttachment | undefined> {
  return {
    kind: 'file',
    description: options.description,
    isRequired: false,
    schema: documentAttachmentSchema.optional(),
    ...(options.aliases ? { aliases: options.aliases } : {}),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: each option keeps its own value type; the record only names them.
export type CommandOptions = Record<string, CommandOption<any>>;

/** The validated input a command's `run` receives, typed from its options. */
export type CommandInput<Options extends CommandOptions> = {
  [Name in keyof Options]: Options[Name] extends CommandOption<infer Value> ? Value : never;
};

/**
 * Validates raw platform values against the options; every problem is one short line for the person,
 * naming the flag as they typed it when the values came from command text.
 */
export function parseCommandInput<Options extends CommandOptions>(
  options: Options,
  raw: Readonly<Record<string, RawOptionValue | undefined>>,
): { isValid: true; input: CommandInput<Options> } | { isValid: false; problems: string[] } {
  const typed = (raw as Partial<ParsedCommandText>)[typedFlags] ?? {};
  const labelOf = (name: string) => typed[name] ?? name;
  const problems = Object.keys(raw)
    .filter((name) => !(name in options))
    .map((name) => unknownNameProblem({ name, value: raw[name], options }));
  // A flag typed without its value: saying so beats what its schema would say about an empty string.
  const withoutValue = new Set(
    Object.keys(options).filter((name) => raw[name] === '' && typed[name] !== undefined),
  );
  for (const name of withoutValue) problems.push(`${labelOf(name)} needs a value`);
  const shape = Object.fromEntries(Object.entries(options).map(([name, option]) => [name, option.schema]));
  const result = z.object(shape).safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const name = String(issue.path[0] ?? 'input');
      if (withoutValue.has(name)) continue;
      const message =
        issue.code === 'invalid_type' && raw[name] === undefined ? 'is required' : issue.message;
      problems.push(`${labelOf(name)} ${message}`);
    }
  }
  if (problems.length > 0 || !result.success) return { isValid: false, problems };
  return { isValid: true, input: result.data as CommandInput<Options> };
}

function unknownNameProblem({
  name,
  value,
  options,
}: {
  name: string;
  value: RawOptionValue | undefined;
  options: CommandOptions;
}): string {
  const flags = Object.entries(options)
    .filter(([, option]) => !option.isFreeText && !option.isPositional)
    .map(
      ([optionName, option]) =>
        `${flagOf(optionName)}${option.aliases?.[0] ? ` (or --${option.aliases[0]})` : ''}`,
    );
  if (name === strayTextKey) {
    return `this command takes no text${flags.length > 0 ? ', only its flags' : ''} (you wrote "${String(value)}")`;
  }
  if (name.startsWith('--')) {
    const typedFlag = typeof value === 'string' ? value : name;
    const known = flags.length > 0 ? `its flags are ${flags.join(', ')}` : 'it has no flags';
    return `${typedFlag} is not a flag of this command; ${known}. To write ${typedFlag} in the text, type \\${typedFlag}`;
  }
  return `there is no option "${name}" (options: ${Object.keys(options).join(', ') || 'none'})`;
}

import { z } from 'zod';
import { quoteSettingValue } from './quote-setting-value.ts';

/**
 * The shapes a setting's value can have, each with words for every way it can be wrong, and the
 * documentation every setting carries (read by scripts/config-reference.ts).
 */

/** What the generated reference says about a variable; `section` groups variables in the docs. */
export interface SettingDocumentation {
  readonly description: string;
  /** How the value is written, when the schema alone says too little (e.g. "comma-separated ids"). */
  readonly typeText?: string;
  /** The default in words, when it depends on something else (e.g. the platform). */
  readonly defaultText?: string;
  /** A value to show in .env.example for a required variable. */
  readonly example?: string;
  readonly section?: string;
}

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const wholeNumber = ({ min, max, fallback }: { min: number; max?: number; fallback: number }) => {
  const range =
    max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
  const base = z.coerce
    .number({ error: `must be ${range}` })
    .int(`must be ${range}`)
    .min(min, `must be ${range}`);
  return (max === undefined ? base : base.max(max, `must be ${range}`)).default(fallback);
};

export const text = (fallback: string) => z.string().trim().min(1).default(fallback);

export const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

// `a, b,c` → ['a', 'b', 'c']; unset or empty → [].
export const commaList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );

/**
 * An http(s) URL. Each way of being wrong has its own words: unset, not a URL at all, another scheme.
 * Trailing slashes are dropped so paths join cleanly.
 */
export const httpUrl = ({ example }: { example: string }) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? `is required: an http(s) URL like ${example}` : 'must be text',
    })
    .trim()
    .superRefine((value, context) => {
      if (!URL.canParse(value)) {
        context.addIssue({
          code: 'custom',
          message: `is not a URL: ${quoteSettingValue(value)}; expected one like ${example}`,
        });
      } else if (!/^https?:$/.test(new URL(value).protocol)) {
        context.addIssue({
          code: 'custom',
          message: `must start with http:// or https://: ${quoteSettingValue(value)}; expected one like ${example}`,
        });
      }
    })
    .transform((value) => value.replace(/\/+$/, ''));

// The operations parley calls under the base URL; a base that already ends in one of them is wrong.
export const gatewayOperationPaths = ['/chat/completions', '/images/generations'] as const;

export const gatewayBaseUrl = httpUrl({ example: 'https://gateway.example/api/v1' }).superRefine(
  (value, context) => {
    const operation = gatewayOperationPaths.find((path) => value.endsWith(path));
    if (operation) {
      context.addIssue({
        code: 'custom',
        message: `ends in ${operation}, the address of one operation; set the base it sits under instead: ${value.slice(0, -operation.length)} (parley adds ${operation} itself)`,
      });
    }
  },
);

export const healthPort = z
  .string()
  .trim()
  .optional()
  .transform((value, context): number | 'off' | undefined => {
    if (value === undefined || value === '') return undefined;
    if (value.toLowerCase() === 'off') return 'off';
    const port = Number(value);
    if (Number.isInteger(port) && port >= 0 && port <= 65_535) return port;
    context.addIssue({
      code: 'custom',
      message: `must be a port number (0–65535) or off, got ${quoteSettingValue(value)}`,
    });
    return z.NEVER;
  });

/** Gives every setting of a group its section name in the generated docs. */
export function section<Shape extends Record<string, z.ZodType>>(name: string, shape: Shape): Shape {
  return Object.fromEntries(
    Object.entries(shape).map(([variable, schema]) => [
      variable,
      schema.meta({ ...z.globalRegistry.get(schema), section: name }),
    ]),
  ) as Shape;
}

export const document = <Schema extends z.ZodType>(
  schema: Schema,
  documentation: SettingDocumentation,
): Schema => schema.meta({ ...z.globalRegistry.get(schema), ...documentation });

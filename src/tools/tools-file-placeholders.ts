import { z } from 'zod';

/**
 * The `${NAME}` placeholders of the tools file: which variables a server's entry names, parley's own
 * among them refused unless its `allowParleyVariables` lists them, and the rest filled from the
 * environment, each value kept for the logger's scrubber.
 */

const placeholderPattern = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const variableNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'is a variable name');
/** parley's own variables this server may have as placeholders (the owner's explicit yes). */
export const allowParleyVariablesSchema = z.array(variableNameSchema).optional();

/** One variable a server's entry names as `${NAME}`, and the field it went into (`headers`, `args`…). */
export interface PlaceholderVariable {
  readonly name: string;
  readonly field: string;
}

// Every string in the server's entry may hold placeholders; each value put in is a secret.
export function fillPlaceholders(
  value: unknown,
  {
    environment,
    secrets,
    variableNames,
  }: {
    environment: Readonly<Record<string, string | undefined>>;
    secrets: Set<string>;
    variableNames: Set<string>;
  },
): { value: unknown; missing: string[]; variables: PlaceholderVariable[] } {
  const missing: string[] = [];
  const variables = new Map<string, PlaceholderVariable>();
  const fill = (item: unknown, field: string): unknown => {
    if (typeof item === 'string') {
      return item.replace(placeholderPattern, (_, variable: string) => {
        variableNames.add(variable);
        variables.set(`${variable} ${field}`, { name: variable, field });
        const filled = environment[variable];
        if (filled === undefined || filled === '') {
          missing.push(variable);
          return '';
        }
        secrets.add(filled);
        return filled;
      });
    }
    if (Array.isArray(item)) return item.map((inner) => fill(inner, field));
    if (typeof item === 'object' && item !== null) {
      // The field a value lands in is the entry's own key (`headers`, `env`, `args`, `url`).
      return Object.fromEntries(
        Object.entries(item).map(([key, inner]) => [key, fill(inner, field === '' ? key : field)]),
      );
    }
    return item;
  };
  const filled = fill(value, '');
  return { value: filled, missing: [...new Set(missing)], variables: [...variables.values()] };
}

/** The server's `allowParleyVariables`, read before its placeholders are filled; each must be parley's. */
export function allowedParleyVariables({
  raw,
  name,
  path,
  parleyVariableNames,
}: {
  raw: unknown;
  name: string;
  path: string;
  parleyVariableNames: ReadonlySet<string>;
}): { names: ReadonlySet<string> } | { problems: string[] } {
  const value =
    typeof raw === 'object' && raw !== null
      ? (raw as Record<string, unknown>).allowParleyVariables
      : undefined;
  const parsed = allowParleyVariablesSchema.safeParse(value);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map(
        (issue) =>
          `TOOLS_FILE ${path}: ${['servers', name, 'allowParleyVariables', ...issue.path.map(String)].join('.')} ${issue.message}`,
      ),
    };
  }
  const names = parsed.data ?? [];
  // A name parley does not read is a typo: allowing it would allow nothing, silently.
  const strangers = names.filter((variable) => !parleyVariableNames.has(variable));
  if (strangers.length > 0) {
    return {
      problems: strangers.map(
        (variable) =>
          `TOOLS_FILE ${path}: servers.${name}.allowParleyVariables names ${variable}, which is not one of parley's variables (a placeholder of any other variable needs no allowing)`,
      ),
    };
  }
  return { names: new Set(names) };
}

/** parley's own variables the entry names as placeholders without the server's allow list saying so. */
export function refusedPlaceholders({
  raw,
  parleyVariableNames,
  allowed,
}: {
  raw: unknown;
  parleyVariableNames: ReadonlySet<string>;
  allowed: ReadonlySet<string>;
}): string[] {
  const refused = new Set<string>();
  const visit = (item: unknown): void => {
    if (typeof item === 'string') {
      for (const [, variable = ''] of item.matchAll(placeholderPattern)) {
        if (parleyVariableNames.has(variable) && !allowed.has(variable)) refused.add(variable);
      }
    } else if (Array.isArray(item)) item.forEach(visit);
    else if (typeof item === 'object' && item !== null) Object.values(item).forEach(visit);
  };
  visit(raw);
  return [...refused];
}

import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';

/** The fields a server asks for (MCP `elicitation/create`, form mode): a flat object of primitives. */
export type RequestedSchema = ElicitRequestFormParams['requestedSchema'];

type FieldValue = string | number | boolean | string[];

/** One field as parley reads it, whatever variant of the specification's schema it came as. */
interface Field {
  readonly name: string;
  readonly label: string;
  readonly description: string | undefined;
  readonly kind: 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices';
  readonly choices: readonly { readonly value: string; readonly title: string }[];
  readonly isRequired: boolean;
  readonly defaultValue: FieldValue | undefined;
  readonly minimum: number | undefined;
  readonly maximum: number | undefined;
}

/** What a person's submission came to: the content for the server, or what to fix. */
export type FormReading =
  | { readonly kind: 'valid'; readonly content: Record<string, FieldValue> }
  | { readonly kind: 'invalid'; readonly problems: readonly string[] };

/** The fields of a requested schema; undefined when one is of a kind parley cannot ask for. */
export function fieldsOf(schema: RequestedSchema): Field[] | undefined {
  const required = new Set(schema.required ?? []);
  const fields: Field[] = [];
  for (const [name, raw] of Object.entries(schema.properties)) {
    const property = raw as Record<string, unknown>;
    const label = typeof property.title === 'string' ? property.title : name;
    const description = typeof property.description === 'string' ? property.description : undefined;
    const base = {
      name,
      label,
      description,
      isRequired: required.has(name),
      minimum: numberOr(property.minimum ?? property.minLength ?? property.minItems),
      maximum: numberOr(property.maximum ?? property.maxLength ?? property.maxItems),
    };
    const choices = choicesOf(property);
    if (property.type === 'array') {
      const items = (property.items ?? {}) as Record<string, unknown>;
      const itemChoices = choicesOf(items);
      if (!itemChoices) return undefined;
      fields.push({
        ...base,
        kind: 'choices',
        choices: itemChoices,
        defaultValue: stringsOr(property.default),
      });
    } else if (property.type === 'string' && choices) {
      fields.push({ ...base, kind: 'choice', choices, defaultValue: stringOr(property.default) });
    } else if (property.type === 'string') {
      fields.push({ ...base, kind: 'text', choices: [], defaultValue: stringOr(property.default) });
    } else if (property.type === 'number' || property.type === 'integer') {
      fields.push({ ...base, kind: property.type, choices: [], defaultValue: numberOr(property.default) });
    } else if (property.type === 'boolean') {
      fields.push({
        ...base,
        kind: 'boolean',
        choices: [],
        defaultValue: typeof property.default === 'boolean' ? property.default : undefined,
      });
    } else return undefined;
  }
  return fields;
}

/**
 * Reads a submitted form against the schema: required fields present, numbers numbers within their
 * bounds, text within its length, choices among those offered; a field left empty takes its default
 * (SEP-1034). Checkbox fields arrive only when ticked, so an unticked one is false.
 */
export function readSubmission(fields: readonly Field[], form: URLSearchParams): FormReading {
  const content: Record<string, FieldValue> = {};
  const problems: string[] = [];
  for (const field of fields) {
    const values = form.getAll(field.name).map((value) => value.trim());
    const text = values[0] ?? '';
    if (field.kind === 'boolean') {
      content[field.name] = text === 'true';
      continue;
    }
    if (field.kind === 'choices') {
      const chosen = values.filter((value) => value !== '');
      if (chosen.some((value) => !field.choices.some((choice) => choice.value === value))) {
        problems.push(`${field.label}: choose among the options offered`);
      } else if (chosen.length > 0) content[field.name] = chosen;
      else if (field.defaultValue !== undefined) content[field.name] = field.defaultValue;
      else if (field.isRequired) problems.push(`${field.label}: choose at least one`);
      continue;
    }
    if (text === '') {
      if (field.defaultValue !== undefined) content[field.name] = field.defaultValue;
      else if (field.isRequired) problems.push(`${field.label}: required`);
      continue;
    }
    if (field.kind === 'choice') {
      if (field.choices.some((choice) => choice.value === text)) content[field.name] = text;
      else problems.push(`${field.label}: choose one of the options offered`);
    } else if (field.kind === 'text') {
      if (field.minimum !== undefined && text.length < field.minimum) {
        problems.push(`${field.label}: at least ${field.minimum} characters`);
      } else if (field.maximum !== undefined && text.length > field.maximum) {
        problems.push(`${field.label}: at most ${field.maximum} characters`);
      } else content[field.name] = text;
    } else {
      const number = Number(text);
      if (!Number.isFinite(number) || (field.kind === 'integer' && !Number.isInteger(number))) {
        problems.push(`${field.label}: ${field.kind === 'integer' ? 'a whole number' : 'a number'}`);
      } else if (field.minimum !== undefined && number < field.minimum) {
        problems.push(`${field.label}: at least ${field.minimum}`);
      } else if (field.maximum !== undefined && number > field.maximum) {
        problems.push(`${field.label}: at most ${field.maximum}`);
      } else content[field.name] = number;
    }
  }
  return problems.length > 0 ? { kind: 'invalid', problems } : { kind: 'valid', content };
}

/** The question as an HTML form: every text escaped, since the server wrote it. */
export function renderForm({
  server,
  message,
  fields,
  problems = [],
}: {
  server: string;
  message: string;
  fields: readonly Field[];
  problems?: readonly string[];
}): string {
  const inputs = fields.map((field) => {
    const label = `<label for="${escapeHtml(field.name)}">${escapeHtml(field.label)}${field.isRequired ? ' *' : ''}</label>`;
    const hint = field.description ? `<div><small>${escapeHtml(field.description)}</small></div>` : '';
    const id = `id="${escapeHtml(field.name)}" name="${escapeHtml(field.name)}"`;
    const initial = field.defaultValue;
    let input: string;
    if (field.kind === 'boolean') {
      input = `<input type="checkbox" ${id} value="true"${initial === true ? ' checked' : ''}>`;
    } else if (field.kind === 'choice') {
      input = `<select ${id}><option value=""></option>${field.choices
        .map(
          (choice) =>
            `<option value="${escapeHtml(choice.value)}"${initial === choice.value ? ' selected' : ''}>${escapeHtml(choice.title)}</option>`,
        )
        .join('')}</select>`;
    } else if (field.kind === 'choices') {
      input = field.choices
        .map(
          (choice) =>
            `<label><input type="checkbox" name="${escapeHtml(field.name)}" value="${escapeHtml(choice.value)}"${Array.isArray(initial) && initial.includes(choice.value) ? ' checked' : ''}> ${escapeHtml(choice.title)}</label>`,
        )
        .join(' ');
    } else {
      const type = field.kind === 'text' ? 'text' : 'number';
      const value = initial === undefined ? '' : ` value="${escapeHtml(String(initial))}"`;
      input = `<input type="${type}" ${id}${value}${field.kind === 'number' ? ' step="any"' : ''}>`;
    }
    return `<p>${label}<br>${input}${hint}</p>`;
  });
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(server)} asks</title></head><body>`,
    `<h1>${escapeHtml(server)} asks</h1><p>${escapeHtml(message)}</p>`,
    problems.length > 0
      ? `<ul>${problems.map((problem) => `<li>${escapeHtml(problem)}</li>`).join('')}</ul>`
      : '',
    '<form method="post">',
    ...inputs,
    '<button type="submit" name="_action" value="accept">Send</button> ',
    '<button type="submit" name="_action" value="decline">Decline</button>',
    '</form></body></html>',
  ].join('');
}

function choicesOf(property: Record<string, unknown>): { value: string; title: string }[] | undefined {
  if (Array.isArray(property.enum)) {
    const names = Array.isArray(property.enumNames) ? property.enumNames : [];
    return property.enum.map((value, index) => ({
      value: String(value),
      title: String(names[index] ?? value),
    }));
  }
  const options = (property.oneOf ?? property.anyOf) as unknown;
  if (Array.isArray(options)) {
    return options.map((option: { const?: unknown; title?: unknown }) => ({
      value: String(option.const),
      title: String(option.title ?? option.const),
    }));
  }
  return undefined;
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function stringsOr(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Markup built by `html`: its own text is trusted, every value put into it was escaped. */
export class SafeHtml {
  readonly markup: string;
  constructor(markup: string) {
    this.markup = markup;
  }
  toString(): string {
    return this.markup;
  }
}

const entities: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text made safe to put between tags or inside a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => entities[character] ?? character);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * The console's one way to write markup: every value people or models wrote (names, notes,
 * prompts, tool arguments, setting values) goes in as a template value and is escaped; only other
 * `html` results and lists of them pass as they are. Attribute values are always quoted in the
 * templates, so an escaped value cannot leave its attribute.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let markup = strings[0] ?? '';
  values.forEach((value, index) => {
    markup += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(markup);
}

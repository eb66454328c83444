/**
 * A structured answer in platform-neutral form. Discord renders it as an embed, Slack as Block Kit,
 * the terminal as text; each renderer keeps within its platform's limits and says what it cut.
 */
export interface Card {
  readonly title: string;
  /** Markdown, a few paragraphs at most. */
  readonly description?: string;
  readonly fields?: readonly CardField[];
  readonly table?: CardTable;
  readonly footer?: string;
  readonly tone?: 'info' | 'success' | 'warning' | 'error';
}

export interface CardField {
  readonly name: string;
  /** Markdown; a list is written as lines starting with `• `. */
  readonly value: string;
  /** Shown side by side with other short fields where the platform can. */
  readonly isInline?: boolean;
}

export interface CardTable {
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
}

/** A button under a message. `id` says what it does and carries its payload's key, see commands/actions. */
export interface Action {
  readonly id: string;
  readonly label: string;
  readonly style?: 'primary' | 'secondary' | 'danger';
  /**
   * A rating of the reply: a platform with native feedback buttons (Slack's feedback_buttons) draws
   * the pair as one control; elsewhere they are ordinary buttons.
   */
  readonly feedback?: 'positive' | 'negative';
}

/** Shortens `text` to `maxLength` characters, ending with `…` when anything was cut. */
export function truncateText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  return `${text.slice(0, Math.max(0, maxLength - 1)).trimEnd()}…`;
}

/** The table as aligned monospace text: the one table form every platform can show. */
export function renderTableAsText(table: CardTable, { maxLength }: { maxLength: number }): string {
  const widths = table.columns.map((column, index) =>
    Math.min(24, Math.max(column.length, ...table.rows.map((row) => (row[index] ?? '').length))),
  );
  const line = (cells: readonly string[]) =>
    widths
      .map((width, index) => truncateText((cells[index] ?? '').replace(/\s+/g, ' '), width).padEnd(width))
      .join(' │ ')
      .trimEnd();
  const header = [line(table.columns), widths.map((width) => '─'.repeat(width)).join('─┼─')];
  const lines = [...header];
  for (const [index, row] of table.rows.entries()) {
    const remaining = table.rows.length - index;
    const next = line(row);
    const moreNote = `… ${remaining} more rows`;
    if ([...lines, next].join('\n').length + moreNote.length + 1 > maxLength) {
      lines.push(moreNote);
      break;
    }
    lines.push(next);
  }
  return lines.join('\n');
}

/** The card as plain Markdown text: the terminal's rendering and every platform's notification text. */
export function renderCardAsText(card: Card, actions: readonly Action[] = []): string {
  const parts = [`**${card.title}**`];
  if (card.description) parts.push(card.description);
  for (const field of card.fields ?? []) parts.push(`**${field.name}**\n${field.value}`);
  if (card.table && card.table.rows.length > 0) {
    parts.push(`\`\`\`\n${renderTableAsText(card.table, { maxLength: 3_000 })}\n\`\`\``);
  }
  if (card.footer) parts.push(`_${card.footer}_`);
  if (actions.length > 0) parts.push(actions.map((action) => `[${action.label}]`).join(' '));
  return parts.join('\n\n');
}

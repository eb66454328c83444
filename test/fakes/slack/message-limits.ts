import { SlackApiError } from './slack-api-error.ts';

/**
 * Slack's limits on what one message may carry: `text` from chat.postMessage ("Truncating content":
 * cut at 40,000 characters), blocks from the Block Kit reference (docs.slack.dev/reference/block-kit/
 * blocks: 50 blocks a message; section text 3,000, 10 fields of 2,000; header 150; context 10
 * elements; actions 25 elements; button text 75), the markdown block page (12,000 characters for all
 * markdown blocks of a payload), chat.appendStream's `markdown_text` (12,000) and the table block page.
 */
export const messageLimits = {
  /** Longer `text` is cut here by `chat.postMessage`. */
  maxTextCharacters: 40_000,
  maxBlocks: 50,
  maxSectionTextCharacters: 3_000,
  maxSectionFieldCharacters: 2_000,
  maxSectionFields: 10,
  maxHeaderTextCharacters: 150,
  /** All `markdown` blocks of one payload together. */
  maxMarkdownBlockCharacters: 12_000,
  maxContextElements: 10,
  maxActionsElements: 25,
  maxButtonTextCharacters: 75,
  /** `markdown_text` of one streaming call. */
  maxStreamMarkdownCharacters: 12_000,
  /** Table block: rows (the first one included), cells a row, column settings, tables a message. */
  maxTableRows: 100,
  maxTableCells: 20,
  maxTablesPerMessage: 1,
} as const;

/** Cuts `text` at Slack's limit, as `chat.postMessage` does instead of refusing it. */
export function truncateText(text: string): string {
  return text.length > messageLimits.maxTextCharacters
    ? text.slice(0, messageLimits.maxTextCharacters)
    : text;
}

/**
 * Checks the Block Kit limits an AI bot is likely to hit and throws `invalid_blocks` the way Slack
 * does: the problems in `errors`, each with a JSON pointer, and again as `[ERROR]` response messages.
 */
export function assertValidBlocks(blocks: unknown[]): void {
  const problems = findBlockProblems(blocks);
  if (problems.length > 0) {
    throw new SlackApiError('invalid_blocks', {
      errors: problems,
      response_metadata: { messages: problems.map((problem) => `[ERROR] ${problem}`) },
    });
  }
}

function findBlockProblems(blocks: unknown[]): string[] {
  const problems: string[] = [];
  if (blocks.length > messageLimits.maxBlocks) {
    problems.push(`no more than ${messageLimits.maxBlocks} items allowed [json-pointer:/blocks]`);
  }
  let markdownCharacters = 0;
  let tableCount = 0;
  blocks.forEach((block, index) => {
    const pointer = `/blocks/${index}`;
    if (!isRecord(block) || typeof block.type !== 'string') {
      problems.push(`missing required field: type [json-pointer:${pointer}]`);
      return;
    }
    if (block.type === 'markdown') {
      markdownCharacters += typeof block.text === 'string' ? block.text.length : 0;
    }
    if (block.type === 'table') {
      tableCount += 1;
      // Table block page (docs.slack.dev/reference/block-kit/blocks/table-block): one table a message.
      if (tableCount > messageLimits.maxTablesPerMessage) {
        problems.push(`only one table block is allowed per message [json-pointer:${pointer}]`);
      }
    }
    problems.push(...findProblemsInBlock(block, pointer));
  });
  if (markdownCharacters > messageLimits.maxMarkdownBlockCharacters) {
    problems.push(
      `markdown blocks must be less than ${messageLimits.maxMarkdownBlockCharacters + 1} characters in total [json-pointer:/blocks]`,
    );
  }
  return problems;
}

function findProblemsInBlock(block: Record<string, unknown>, pointer: string): string[] {
  const problems: string[] = [];
  const checkText = (value: unknown, maxCharacters: number, at: string) => {
    const text = isRecord(value) ? value.text : undefined;
    if (typeof text === 'string' && text.length > maxCharacters) {
      problems.push(`must be less than ${maxCharacters + 1} characters [json-pointer:${at}]`);
    }
  };
  const checkCount = (value: unknown, maxItems: number, at: string) => {
    if (Array.isArray(value) && value.length > maxItems) {
      problems.push(`must provide no more than ${maxItems} items [json-pointer:${at}]`);
    }
  };

  switch (block.type) {
    case 'section':
      checkText(block.text, messageLimits.maxSectionTextCharacters, `${pointer}/text/text`);
      checkCount(block.fields, messageLimits.maxSectionFields, `${pointer}/fields`);
      if (Array.isArray(block.fields)) {
        block.fields.forEach((field, index) => {
          checkText(field, messageLimits.maxSectionFieldCharacters, `${pointer}/fields/${index}/text`);
        });
      }
      if (block.text === undefined && block.fields === undefined) {
        problems.push(`must provide either text or fields [json-pointer:${pointer}]`);
      }
      break;
    case 'header':
      checkText(block.text, messageLimits.maxHeaderTextCharacters, `${pointer}/text/text`);
      break;
    case 'context':
      checkCount(block.elements, messageLimits.maxContextElements, `${pointer}/elements`);
      break;
    case 'context_actions':
      // Context actions block (docs.slack.dev/reference/block-kit/blocks/context-actions-block): up to
      // 5 elements, each feedback_buttons or icon_button. Feedback buttons element
      // (docs.slack.dev/reference/block-kit/block-elements/feedback-buttons-element): positive_button
      // and negative_button are required, each a plain_text text of at most 75 characters and a value
      // of at most 2,000; action_id at most 255.
      checkCount(block.elements, 5, `${pointer}/elements`);
      if (!Array.isArray(block.elements) || block.elements.length === 0) {
        problems.push(`missing required field: elements [json-pointer:${pointer}]`);
        break;
      }
      block.elements.forEach((element, index) => {
        const at = `${pointer}/elements/${index}`;
        if (!isRecord(element) || (element.type !== 'feedback_buttons' && element.type !== 'icon_button')) {
          problems.push(`must be a feedback_buttons or icon_button element [json-pointer:${at}]`);
          return;
        }
        if (typeof element.action_id === 'string' && element.action_id.length > 255) {
          problems.push(`must be less than 256 characters [json-pointer:${at}/action_id]`);
        }
        if (element.type !== 'feedback_buttons') return;
        for (const side of ['positive_button', 'negative_button'] as const) {
          const button = element[side];
          const text = isRecord(button) && isRecord(button.text) ? button.text : undefined;
          if (!isRecord(button) || text?.type !== 'plain_text' || typeof button.value !== 'string') {
            problems.push(`missing required field: ${side} [json-pointer:${at}/${side}]`);
            continue;
          }
          checkText(text, 75, `${at}/${side}/text/text`);
          if (button.value.length > 2_000)
            problems.push(`must be less than 2001 characters [json-pointer:${at}/${side}/value]`);
        }
      });
      break;
    case 'actions':
      checkCount(block.elements, messageLimits.maxActionsElements, `${pointer}/elements`);
      if (Array.isArray(block.elements)) {
        block.elements.forEach((element, index) => {
          if (isRecord(element) && element.type === 'button') {
            checkText(
              element.text,
              messageLimits.maxButtonTextCharacters,
              `${pointer}/elements/${index}/text`,
            );
          }
        });
      }
      break;
    case 'table':
      problems.push(...findProblemsInTable(block, pointer));
      break;
    default:
      break;
  }
  return problems;
}

/**
 * The table block (docs.slack.dev/reference/block-kit/blocks/table-block, and TableBlock in
 * @slack/types): `rows` is required, at most 100 rows of at most 20 cells; a cell is `raw_text`
 * (text of at least one character), `raw_number` or `rich_text`; at most 20 `column_settings`.
 */
function findProblemsInTable(block: Record<string, unknown>, pointer: string): string[] {
  const problems: string[] = [];
  if (!Array.isArray(block.rows) || block.rows.length === 0) {
    return [`missing required field: rows [json-pointer:${pointer}/rows]`];
  }
  if (block.rows.length > messageLimits.maxTableRows) {
    problems.push(
      `must provide no more than ${messageLimits.maxTableRows} items [json-pointer:${pointer}/rows]`,
    );
  }
  block.rows.forEach((row, rowIndex) => {
    const at = `${pointer}/rows/${rowIndex}`;
    if (!Array.isArray(row) || row.length === 0 || row.length > messageLimits.maxTableCells) {
      problems.push(`must provide 1 to ${messageLimits.maxTableCells} cells [json-pointer:${at}]`);
      return;
    }
    row.forEach((cell, cellIndex) => {
      const type = isRecord(cell) ? cell.type : undefined;
      const isText =
        type === 'raw_text' && isRecord(cell) && typeof cell.text === 'string' && cell.text.length >= 1;
      const isNumber = type === 'raw_number';
      const isRich = type === 'rich_text' && isRecord(cell) && Array.isArray(cell.elements);
      if (!isText && !isNumber && !isRich) {
        problems.push(`must be a raw_text, raw_number or rich_text cell [json-pointer:${at}/${cellIndex}]`);
      }
    });
  });
  if (Array.isArray(block.column_settings) && block.column_settings.length > messageLimits.maxTableCells) {
    problems.push(
      `must provide no more than ${messageLimits.maxTableCells} items [json-pointer:${pointer}/column_settings]`,
    );
  }
  return problems;
}

/**
 * Markdown that Slack accepts in a `markdown` block or a stream's `markdown_text` but shows as typed:
 * the Markdown block page lists tables among what it does not render. Returns `table` for each pipe
 * table (a `|` header line over a `|---|` separator) outside code blocks, for tests to check what a
 * person would see.
 */
export function markdownShownRaw(markdown: string): string[] {
  const found: string[] = [];
  let isCode = false;
  const lines = markdown.split('\n');
  for (const [index, line] of lines.entries()) {
    if (/^\s*(```|~~~)/.test(line)) isCode = !isCode;
    const next = lines[index + 1] ?? '';
    if (!isCode && /\|/.test(line) && /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$/.test(next))
      found.push('table');
  }
  return found;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

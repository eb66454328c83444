import { SlackApiError } from './slack-api-error.ts';

/** Slack's limits on what one message may carry. */
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
  blocks.forEach((block, index) => {
    const pointer = `/blocks/${index}`;
    if (!isRecord(block) || typeof block.type !== 'string') {
      problems.push(`missing required field: type [json-pointer:${pointer}]`);
      return;
    }
    if (block.type === 'markdown') {
      markdownCharacters += typeof block.text === 'string' ? block.text.length : 0;
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
    default:
      break;
  }
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

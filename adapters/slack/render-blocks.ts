import type { types } from '@slack/bolt';
import { type Action, type Card, renderTableAsText, truncateText } from '../../src/delivery/card.ts';
import { splitTrailingTable } from './markdown-tables.ts';
import { escapeControlCharacters, markdownToMrkdwn } from './markdown-to-mrkdwn.ts';
import { neutraliseMentions } from './mention-guard.ts';
import { slackLimits } from './slack-limits.ts';

/** A Block Kit block as the Web API takes it. */
export type SlackBlock = types.KnownBlock;

/** Actions as one `actions` block of buttons; undefined when there are none. */
export function renderActionsBlock(actions: readonly Action[]): types.ActionsBlock | undefined {
  if (actions.length === 0) return undefined;
  return {
    type: 'actions',
    block_id: 'parley-actions',
    elements: actions.slice(0, slackLimits.actionsElements).map((action) => ({
      type: 'button',
      action_id: action.id.slice(0, slackLimits.actionId),
      text: { type: 'plain_text', text: truncateText(action.label, slackLimits.buttonText), emoji: true },
      // Slack has no "secondary" style: a button without a style is the plain one.
      ...(action.style === 'primary' || action.style === 'danger' ? { style: action.style } : {}),
    })),
  };
}

/**
 * A chat reply message: its Markdown in a `markdown` block, which Slack renders as Markdown (the same
 * text a native stream carries) with mentions made inert; a table the reply ends with as a `table`
 * block, other tables as preformatted text (markdown-tables.ts); and the buttons under it.
 */
export function renderReplyBlocks(markdown: string, actions: readonly Action[] = []): SlackBlock[] {
  const feedbackBlock = renderFeedbackBlock(actions);
  const actionsBlock = renderActionsBlock(
    feedbackBlock === undefined ? actions : actions.filter((action) => action.feedback === undefined),
  );
  const { markdown: text, table } = splitTrailingTable(markdown, {
    maxLength: slackLimits.markdownBlockCharacters,
  });
  const hasText = text.trim() !== '' || table === undefined;
  return [
    ...(hasText ? [{ type: 'markdown' as const, text: neutraliseMentions(text) }] : []),
    ...(table ? [table] : []),
    ...(actionsBlock ? [actionsBlock] : []),
    ...(feedbackBlock ? [feedbackBlock] : []),
  ];
}

/** The action id of the 👍/👎 control; each side's `value` is the id of the action it stands for. */
export const feedbackActionId = 'parley-feedback';

/**
 * A reply's 👍/👎 as Slack's own feedback buttons, which "must be used inside the context actions
 * block" (docs.slack.dev/reference/block-kit/block-elements/feedback-buttons-element): one element,
 * one action id, and each side's value names the action it stands for. Undefined unless both sides
 * are there.
 */
export function renderFeedbackBlock(actions: readonly Action[]): SlackBlock | undefined {
  const positive = actions.find((action) => action.feedback === 'positive');
  const negative = actions.find((action) => action.feedback === 'negative');
  if (positive === undefined || negative === undefined) return undefined;
  const side = (action: Action, description: string) => ({
    text: { type: 'plain_text' as const, text: action.label },
    value: action.id,
    accessibility_label: description,
  });
  return {
    type: 'context_actions',
    block_id: 'parley-feedback',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: feedbackActionId,
        positive_button: side(positive, 'This reply helped'),
        negative_button: side(negative, 'This reply missed'),
      },
    ],
  } as SlackBlock;
}

/** The notification `text` that goes with blocks: the Markdown as mrkdwn, kept short. */
export function renderFallbackText(markdown: string): string {
  return truncateText(markdownToMrkdwn(markdown), slackLimits.fallbackTextLength);
}

/** Markdown as `section` blocks of mrkdwn, split at line breaks to stay within the section limit. */
export function renderTextSections(markdown: string): SlackBlock[] {
  const mrkdwn = markdownToMrkdwn(markdown);
  const sections: SlackBlock[] = [];
  let current = '';
  for (const line of mrkdwn.split('\n')) {
    const candidate = current === '' ? line : `${current}\n${line}`;
    if (candidate.length <= slackLimits.sectionText) {
      current = candidate;
      continue;
    }
    if (current !== '') sections.push(mrkdwnSection(current));
    current = truncateText(line, slackLimits.sectionText);
  }
  if (current.trim() !== '') sections.push(mrkdwnSection(current));
  return sections;
}

/**
 * A card as Block Kit within Slack's limits: a header, the description, one section a field (short
 * fields side by side, ten to a section), the table as a monospace code block that says how many
 * rows did not fit, the footer as a context line, and the buttons. Long text is shortened with `…`;
 * fields past the card's character budget or the 50-block limit are counted in a last line.
 */
export function renderCardBlocks(card: Card, actions: readonly Action[] = []): SlackBlock[] {
  let budget = slackLimits.cardCharacters;
  const header: SlackBlock = {
    type: 'header',
    text: { type: 'plain_text', text: truncateText(card.title, slackLimits.headerText), emoji: true },
  };
  const description = card.description
    ? truncateText(markdownToMrkdwn(card.description), Math.min(slackLimits.sectionText, budget * 0.4))
    : '';
  budget -= description.length;
  const table = card.table && card.table.rows.length > 0 ? tableAsCodeBlock(card.table, budget / 2) : '';
  budget -= table.length;
  const footer = card.footer ? truncateText(markdownToMrkdwn(card.footer), 500) : '';
  budget -= footer.length;
  const actionsBlock = renderActionsBlock(actions);

  // Every block that is not a field, plus one for a "more fields" line.
  const otherBlockCount = 1 + [description, table, footer].filter(Boolean).length + (actionsBlock ? 1 : 0);
  const fieldBlocks = renderFields(card.fields ?? [], {
    maxCharacters: budget,
    maxBlocks: slackLimits.blocksPerMessage - otherBlockCount - 1,
  });
  return [
    header,
    ...(description ? [mrkdwnSection(description)] : []),
    ...fieldBlocks,
    ...(table ? [mrkdwnSection(table)] : []),
    ...(footer ? [contextLine(footer)] : []),
    ...(actionsBlock ? [actionsBlock] : []),
  ];
}

function renderFields(
  fields: NonNullable<Card['fields']>,
  { maxCharacters, maxBlocks }: { maxCharacters: number; maxBlocks: number },
): SlackBlock[] {
  const blocks: SlackBlock[] = [];
  let remaining = maxCharacters;
  let inlineGroup: types.MrkdwnElement[] | undefined;
  for (const [index, field] of fields.entries()) {
    const limit = field.isInline ? slackLimits.sectionFieldText : slackLimits.sectionText;
    const startsBlock = !field.isInline || !inlineGroup || inlineGroup.length >= slackLimits.sectionFields;
    if (remaining < 100 || (startsBlock && blocks.length >= maxBlocks)) {
      blocks.push(contextLine(`… ${fields.length - index} more fields`));
      return blocks;
    }
    const text = truncateText(
      `*${escapeControlCharacters(field.name)}*\n${markdownToMrkdwn(field.value || '—')}`,
      Math.min(limit, remaining),
    );
    remaining -= text.length;
    if (!field.isInline) {
      inlineGroup = undefined;
      blocks.push(mrkdwnSection(text));
    } else if (startsBlock || !inlineGroup) {
      inlineGroup = [{ type: 'mrkdwn', text }];
      blocks.push({ type: 'section', fields: inlineGroup });
    } else {
      inlineGroup.push({ type: 'mrkdwn', text });
    }
  }
  return blocks;
}

function tableAsCodeBlock(table: NonNullable<Card['table']>, maxLength: number): string {
  // Escaping can lengthen the text, so the table is drawn with room to spare and cut if still long.
  const room = Math.max(200, Math.min(slackLimits.sectionText, Math.floor(maxLength)) - 8);
  const text = escapeControlCharacters(renderTableAsText(table, { maxLength: Math.floor(room * 0.9) }));
  return `\`\`\`\n${truncateText(text, room)}\n\`\`\``;
}

function mrkdwnSection(text: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

function contextLine(text: string): SlackBlock {
  return {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: truncateText(text, slackLimits.contextElementText) }],
  };
}

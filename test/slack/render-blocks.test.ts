import { describe, expect, it } from 'vitest';
import { renderCardBlocks, renderTextSections, type SlackBlock } from '../../adapters/slack/render-blocks.ts';
import { slackLimits } from '../../adapters/slack/slack-limits.ts';
import { describeCardRenderingContract } from '../support/card-rendering-contract.ts';

type AnyBlock = {
  type: string;
  text?: { text: string } | string;
  fields?: Array<{ text: string }>;
  elements?: Array<{ type: string; text?: { text: string } | string; action_id?: string }>;
};

function textsOf(block: AnyBlock): string[] {
  const texts: string[] = [];
  if (typeof block.text === 'string') texts.push(block.text);
  else if (block.text) texts.push(block.text.text);
  for (const field of block.fields ?? []) texts.push(field.text);
  if (block.type === 'context') {
    for (const element of block.elements ?? [])
      if (typeof element.text === 'string') texts.push(element.text);
  }
  return texts;
}

/** Throws on anything Slack would refuse with `invalid_blocks` (the limits the fake Slack checks too). */
function assertBlocksWithinLimits(blocks: readonly SlackBlock[]): void {
  const all = blocks as unknown as AnyBlock[];
  expect(all.length).toBeLessThanOrEqual(slackLimits.blocksPerMessage);
  for (const block of all) {
    if (block.type === 'header')
      expect(textsOf(block)[0]?.length).toBeLessThanOrEqual(slackLimits.headerText);
    if (block.type === 'section') {
      expect(block.text !== undefined || block.fields !== undefined).toBe(true);
      if (block.text)
        expect(textsOf({ type: 'x', text: block.text })[0]?.length).toBeLessThanOrEqual(
          slackLimits.sectionText,
        );
      expect(block.fields?.length ?? 0).toBeLessThanOrEqual(slackLimits.sectionFields);
      for (const field of block.fields ?? [])
        expect(field.text.length).toBeLessThanOrEqual(slackLimits.sectionFieldText);
    }
    if (block.type === 'context') expect(block.elements?.length ?? 0).toBeLessThanOrEqual(10);
    if (block.type === 'actions') {
      expect(block.elements?.length ?? 0).toBeLessThanOrEqual(slackLimits.actionsElements);
      for (const button of block.elements ?? []) {
        expect((button.text as { text: string }).text.length).toBeLessThanOrEqual(slackLimits.buttonText);
      }
    }
  }
}

describeCardRenderingContract({
  name: 'Slack Block Kit',
  render: (card, actions) => renderCardBlocks(card, actions),
  visibleText: (rendered) => (rendered as AnyBlock[]).flatMap(textsOf).join('\n'),
  buttons: (rendered) =>
    (rendered as AnyBlock[])
      .filter((block) => block.type === 'actions')
      .flatMap((block) => block.elements ?? [])
      .map((button) => ({ id: button.action_id ?? '', label: (button.text as { text: string }).text })),
  assertWithinLimits: (rendered) => assertBlocksWithinLimits(rendered as SlackBlock[]),
});

describe('Slack Block Kit rendering', () => {
  it('puts short fields side by side and long ones in their own section, in mrkdwn', () => {
    const blocks = renderCardBlocks({
      title: 'Receipt',
      description: 'From **Café Luna**',
      fields: [
        { name: 'Total', value: '€9.40', isInline: true },
        { name: 'Date', value: '2024-05-01', isInline: true },
        { name: 'Items', value: '• Flat white\n• Croissant' },
      ],
    }) as unknown as AnyBlock[];

    expect(blocks.map((block) => block.type)).toEqual(['header', 'section', 'section', 'section']);
    expect(textsOf(blocks[1] as AnyBlock)).toEqual(['From *Café Luna*']);
    expect(blocks[2]?.fields?.map((field) => field.text)).toEqual(['*Total*\n€9.40', '*Date*\n2024-05-01']);
    expect(textsOf(blocks[3] as AnyBlock)).toEqual(['*Items*\n• Flat white\n• Croissant']);
  });

  it('shows a table as a monospace code block with escaped cells', () => {
    const blocks = renderCardBlocks({
      title: 'Table',
      table: { columns: ['Item', 'Qty'], rows: [['<b>', '1']] },
    }) as unknown as AnyBlock[];

    expect(textsOf(blocks[1] as AnyBlock)[0]).toBe('```\nItem │ Qty\n─────┼────\n&lt;b&gt;  │ 1\n```');
  });

  it('splits long text into sections of at most 3,000 characters', () => {
    const text = Array.from({ length: 100 }, (_, index) => `line ${index} ${'x'.repeat(80)}`).join('\n');
    const sections = renderTextSections(text) as unknown as AnyBlock[];

    expect(sections.length).toBeGreaterThan(2);
    expect(sections.flatMap(textsOf).join('\n')).toBe(text);
    assertBlocksWithinLimits(sections as unknown as SlackBlock[]);
  });
});

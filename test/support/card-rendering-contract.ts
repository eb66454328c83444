import { describe, expect, it } from 'vitest';
import type { Action, Card } from '../../src/delivery/card.ts';

/** What a platform renderer must expose for the contract to check it. */
export interface CardRendererUnderTest {
  readonly name: string;
  /** Renders the card with its buttons into whatever the platform sends (an embed, blocks, text). */
  render(card: Card, actions: readonly Action[]): unknown;
  /** All the text a person can read in the rendered form, in order. */
  visibleText(rendered: unknown): string;
  /**
   * The ids and labels of the buttons in the rendered form. A renderer without real buttons (the
   * terminal) leaves it out and must show each label in brackets instead.
   */
  buttons?(rendered: unknown): ReadonlyArray<{ id: string; label: string }>;
  /** Throws when the rendered form breaks a platform limit (lengths, counts). */
  assertWithinLimits(rendered: unknown): void;
}

const fullCard: Card = {
  title: 'Launch planning',
  description: '**TL;DR** We ship on Friday.',
  fields: [
    { name: 'Key points', value: '• Release candidate is green\n• Docs need a pass' },
    { name: 'Total', value: '€9.40', isInline: true },
  ],
  table: {
    columns: ['Item', 'Qty'],
    rows: [
      ['Flat white', '2'],
      ['Croissant', '1'],
    ],
  },
  footer: '12 messages · chat-model',
  tone: 'info',
};

const actions: Action[] = [
  { id: 'parley:imagine.regenerate:token123', label: 'Regenerate', style: 'secondary' },
  { id: 'parley:imagine.vary:token123:0', label: 'Vary', style: 'primary' },
];

/**
 * The rendering contract every platform's card renderer passes: the Discord and Slack renderers run
 * the same suite as the terminal's, so a card means the same thing everywhere.
 */
export function describeCardRenderingContract(renderer: CardRendererUnderTest): void {
  describe(`${renderer.name} card rendering contract`, () => {
    it('shows the title, description, every field, the table and the footer', () => {
      const rendered = renderer.render(fullCard, []);
      const text = renderer.visibleText(rendered);
      for (const piece of [
        'Launch planning',
        'We ship on Friday.',
        'Key points',
        'Docs need a pass',
        'Total',
        '€9.40',
        'Flat white',
        'Croissant',
        'Qty',
        '12 messages · chat-model',
      ]) {
        expect(text).toContain(piece);
      }
      renderer.assertWithinLimits(rendered);
    });

    it('renders every action as a button with its id and label', () => {
      const rendered = renderer.render(fullCard, actions);
      if (renderer.buttons) {
        expect(renderer.buttons(rendered)).toEqual(actions.map(({ id, label }) => ({ id, label })));
      } else {
        for (const action of actions) expect(renderer.visibleText(rendered)).toContain(`[${action.label}]`);
      }
    });

    it('shortens what is too long with an ellipsis instead of failing or dropping it', () => {
      const huge: Card = {
        title: 'T'.repeat(500),
        description: 'd'.repeat(10_000),
        fields: Array.from({ length: 40 }, (_, index) => ({
          name: `Field ${index}`,
          value: 'v'.repeat(2_000),
        })),
        table: {
          columns: ['A', 'B'],
          rows: Array.from({ length: 500 }, (_, index) => [`row ${index}`, 'x'.repeat(50)]),
        },
        footer: 'f'.repeat(5_000),
      };
      const rendered = renderer.render(huge, actions);
      renderer.assertWithinLimits(rendered);
      const text = renderer.visibleText(rendered);
      expect(text).toContain('…');
      expect(text).toContain('Field 0');
      expect(text).toContain('row 0');
      expect(text).toMatch(/more rows|more fields/);
    });

    it('renders a card with only a title', () => {
      const rendered = renderer.render({ title: 'Just a title' }, []);
      expect(renderer.visibleText(rendered)).toContain('Just a title');
      renderer.assertWithinLimits(rendered);
    });
  });
}

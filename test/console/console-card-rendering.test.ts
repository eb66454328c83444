import { renderCardAsText } from '../../src/delivery/card.ts';
import { describeCardRenderingContract } from '../support/card-rendering-contract.ts';

// The terminal (and every platform's plain-text fallback) renders cards as Markdown text, with no
// length limits and buttons as bracketed labels.
describeCardRenderingContract({
  name: 'terminal',
  render: (card, actions) => renderCardAsText(card, actions),
  visibleText: (rendered) => String(rendered),
  assertWithinLimits: () => {},
});

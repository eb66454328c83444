import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../adapters/slack/markdown-to-mrkdwn.ts';

describe('markdown to Slack mrkdwn', () => {
  it.each([
    ['**bold** and __bold__', '*bold* and *bold*'],
    ['*italic* and _italic_', '_italic_ and _italic_'],
    ['***both***', '*_both_*'],
    ['~~gone~~', '~gone~'],
    ['[the docs](https://example.com/a?b=1&c=2)', '<https://example.com/a?b=1&amp;c=2|the docs>'],
    ['![a cat](https://example.com/cat.png)', '<https://example.com/cat.png|a cat>'],
    ['<https://example.com>', '<https://example.com>'],
    ['# Title', '*Title*'],
    ['### **Bold title**', '*Bold title*'],
    ['- one\n  * two\n+ three', '• one\n  • two\n• three'],
    ['> quoted **text**', '> quoted *text*'],
    ['a < b && c > d', 'a &lt; b &amp;&amp; c &gt; d'],
    ['<@U123> <!channel>', '&lt;@U123&gt; &lt;!channel&gt;'],
    ['use `**not bold**` here', 'use `**not bold**` here'],
    ['2 * 3 * 4', '2 * 3 * 4'],
    ['snake_case_name', 'snake_case_name'],
    ['---', '──────────'],
  ])('%j → %j', (markdown, mrkdwn) => {
    expect(markdownToMrkdwn(markdown)).toBe(mrkdwn);
  });

  it('keeps code blocks as they are, without the language, escaping only & < >', () => {
    const markdown = 'Run:\n```ts\nif (a < b && **c**) {}\n```\n**done**';
    expect(markdownToMrkdwn(markdown)).toBe('Run:\n```\nif (a &lt; b &amp;&amp; **c**) {}\n```\n*done*');
  });

  it('turns a table into a code block so its columns line up', () => {
    const markdown = 'Prices:\n| Item | Price |\n|------|------:|\n| Tea | 2 |\nafter';
    expect(markdownToMrkdwn(markdown)).toBe(
      'Prices:\n```\n| Item | Price |\n|------|------:|\n| Tea | 2 |\n```\nafter',
    );
  });
});

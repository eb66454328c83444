import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createTerminalMarkdown } from '../../adapters/console/terminal-markdown.ts';
import { answeredQuestionText, approvalQuestionOf } from '../../commands/approval-question.ts';
import { actingTool } from '../support/test-tools.ts';

/** The question an acting tool's call waits under: every argument, inert, or the file with them. */
const tool = { ...actingTool('test_write'), title: '**Write** `it` <@here>', source: 'test' };

function questionOf(argumentsText: string, maxMessageLength = 2_000) {
  return approvalQuestionOf({
    tool,
    call: { id: 'call_1', name: 'test_write', arguments: argumentsText },
    askerName: 'Ada *the* _asker_',
    maxMessageLength,
  });
}

describe('the approval question', () => {
  it('puts the arguments text itself in a code block the terminal shows literally', () => {
    const raw = '{"note":  "✅ **read-only preview, nothing is sent** `x` [a](https://b.test)"}';
    const question = questionOf(raw);
    expect(question.text).toContain(`\n\`\`\`\n${raw}\n\`\`\`\n`);
    expect(question.file).toBeUndefined();
    // marked-terminal renders a fenced block as code: the Markdown inside stays as written.
    const rendered = stripVTControlCharacters(createTerminalMarkdown({ width: 200 })(question.text));
    expect(rendered).toContain('**read-only preview, nothing is sent** `x` [a](https://b.test)');
  });

  it('shows a server’s title and the asker’s name as plain words', () => {
    const question = questionOf('{}');
    expect(question.text).toContain('(Write it here, from test)');
    expect(question.text).toContain('Ada the asker, allow it?');
  });

  it('cuts long arguments to the room a message has, never inside a character, with the file whole', () => {
    const raw = `{"text": "${'😀'.repeat(1_000)}"}`;
    const question = questionOf(raw);
    const shown = /\n```\n([\s\S]*?)\n```\n/.exec(question.text)?.[1] ?? '';
    expect(shown.length).toBeLessThanOrEqual(1_600);
    expect(raw.startsWith(shown)).toBe(true);
    expect(shown).not.toMatch(/[\uD800-\uDBFF]$/);
    expect(question.text).toContain(
      `(cut, ${(raw.length - shown.length).toLocaleString('en-US')} more characters — see file test_write-arguments.json)`,
    );
    expect(question.text.length).toBeLessThanOrEqual(2_000);
    expect(new TextDecoder().decode(question.file?.bytes)).toBe(raw);
  });

  it('shows arguments that hold a fence only in the file, and says so', () => {
    const raw = '{"text": "a ``` b"}';
    const question = questionOf(raw, 40_000);
    expect(question.text).not.toContain('```');
    expect(question.text).toContain(
      '(not shown here: they hold a code fence — see file test_write-arguments.json)',
    );
    expect(new TextDecoder().decode(question.file?.bytes)).toBe(raw);
  });

  it('shows arguments with direction overrides or invisible characters only in the file', () => {
    for (const raw of [
      '{"to": "\u202Emoc.elpmaxe@eve"}',
      '{"to": "a\u200Bb"}',
      '{"to": "a\u0007"}',
      // Drawn as nothing, able to carry a payload: variation selectors, a tag character, Hangul fillers.
      '{"to": "a\uFE0F\uFE01b"}',
      '{"to": "a\u{E0100}b"}',
      '{"to": "a\u{E0041}b"}',
      '{"to": "a\u3164b"}',
      '{"to": "a\uFFA0b"}',
    ]) {
      const question = questionOf(raw, 40_000);
      expect(question.text).not.toContain('```');
      expect(question.text).toContain("turn the text's direction — see file test_write-arguments.json");
      expect(new TextDecoder().decode(question.file?.bytes)).toBe(raw);
    }
  });

  it('says how it ended in place of asking, keeping what it showed', () => {
    const question = questionOf('{"a":1}');
    const approved = answeredQuestionText(question, { decision: 'approved', approverName: 'Ada' });
    expect(approved).toContain('{"a":1}');
    expect(approved).not.toContain('allow it?');
    expect(approved.endsWith('✅ approved by Ada')).toBe(true);
    expect(answeredQuestionText(question, { decision: 'not-run', detail: 'Ada denied it' })).toMatch(
      /🚫 not run: Ada denied it$/,
    );
  });
});

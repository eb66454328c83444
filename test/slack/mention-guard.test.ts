import { describe, expect, it } from 'vitest';
import { neutraliseMentions } from '../../adapters/slack/mention-guard.ts';
import { streamableHead } from '../../adapters/slack/native-stream.ts';

describe('slack mention guard', () => {
  it('makes every mention Slack parses inert, and leaves look-alikes alone', () => {
    const text =
      '<!here> <!channel|channel> <!EVERYONE> <!subteam^S01|@ops> <@U0ABC> <@W0XYZ|ada> <!date^1|x> <!DOCTYPE html> a<b>c <#C01|general>';
    const guarded = neutraliseMentions(text);

    expect(guarded).toBe(
      '<\u2060!here> <\u2060!channel|channel> <\u2060!EVERYONE> <\u2060!subteam^S01|@ops> <\u2060@U0ABC> <\u2060@W0XYZ|ada> <!date^1|x> <!DOCTYPE html> a<b>c <#C01|general>',
    );
    expect(guarded.replaceAll('\u2060', '')).toBe(text);
  });

  it('streams only what cannot still become a mention, so every head continues into the final text', () => {
    const final = 'Ping <!channel> now, 3 < 4, then <@U0VICTIM1> and ```\ncode <!here>\n```\nend';
    const heads = Array.from({ length: final.length }, (_, index) =>
      streamableHead(final.slice(0, index + 1)),
    );
    const finalForm = neutraliseMentions(final);

    for (const head of heads) expect(finalForm.startsWith(head)).toBe(true);
    expect(heads.some((head) => head.includes('<!channel'))).toBe(false);
    expect(streamableHead('Ping <!chan')).toBe('Ping ');
  });
});

import { describe, expect, it } from 'vitest';
import { parseSlackCommandText } from '../../adapters/slack/command-text.ts';
import { resolveSlackText } from '../../adapters/slack/slack-text.ts';
import { imagineCommand } from '../../commands/definitions/imagine.ts';
import type { ImageAttachment } from '../../src/conversation/turn.ts';

const names: Record<string, string> = { U0ADA00001: 'Ada', U0BOB00001: 'Bob' };
const resolve = (text: string) =>
  resolveSlackText({ text, botUserId: 'U0BOT00001', nameOfUser: async (id) => names[id] ?? id });

describe('Slack message text for the model', () => {
  it.each([
    ['<@U0BOT00001> what does <@U0ADA00001> think?', 'what does @Ada think?'],
    ['<@U0BOB00001|bob> and <@U0UNKNOWN1>', '@Bob and @U0UNKNOWN1'],
    ['see <#C0GENERAL1|general> and <#C0OTHER001>', 'see #general and #channel'],
    ['<!here> <!channel> <!subteam^S0TEAM0001|@devs>', '@here @channel @devs'],
    [
      '<https://example.com|the site> or <https://example.com>',
      'the site (https://example.com) or https://example.com',
    ],
    ['mail <mailto:ada@example.com|ada@example.com>', 'mail ada@example.com'],
    ['a &lt; b &amp;&amp; c &gt; d', 'a < b && c > d'],
  ])('%j → %j', async (text, expected) => {
    expect(await resolve(text)).toBe(expected);
  });
});

describe('Slack command text', () => {
  const latest: ImageAttachment = { name: 'the most recent image', load: async () => new Uint8Array() };
  const parse = (text: string) =>
    parseSlackCommandText({ options: imagineCommand.options, text, recentImage: () => latest });

  it('reads an image flag as a switch for the most recent image, leaving the next word alone', () => {
    expect(parse('--ref a castle --n 2')).toEqual({ prompt: 'a castle', count: '2', reference: latest });
    expect(parse('a castle —ref latest')).toEqual({ prompt: 'a castle', reference: latest });
    expect(parse('a castle --reference=last --ar 16:9')).toEqual({
      prompt: 'a castle',
      reference: latest,
      aspect_ratio: '16:9',
    });
    expect(parse('a castle --n 2')).toEqual({ prompt: 'a castle', count: '2' });
  });
});

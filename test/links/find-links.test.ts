import { describe, expect, it } from 'vitest';
import { findLinks } from '../../src/links/find-links.ts';

describe('finding the links of a message', () => {
  it('takes each link once, in order, without the punctuation that ends a sentence', () => {
    expect(
      findLinks('see https://example.com/a. and (https://example.com/b), then https://example.com/a!', 3),
    ).toEqual(['https://example.com/a', 'https://example.com/b']);
  });

  it('keeps brackets that belong to the link, and stops at angle brackets and pipes', () => {
    expect(findLinks('<https://en.wikipedia.org/wiki/Foo_(bar)> and https://x.test/y|label', 3)).toEqual([
      'https://en.wikipedia.org/wiki/Foo_(bar)',
      'https://x.test/y',
    ]);
  });

  it('reads at most the given number of links', () => {
    const text = Array.from({ length: 5 }, (_, index) => `https://site${index}.test/`).join(' ');
    expect(findLinks(text, 3)).toEqual(['https://site0.test/', 'https://site1.test/', 'https://site2.test/']);
  });
});

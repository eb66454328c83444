import { describe, expect, it } from 'vitest';
import { findFenceAt, findFenceRegions } from '../../src/delivery/markdown-fences.ts';

describe('findFenceRegions', () => {
  it('finds a closed block with its language and positions', () => {
    const text = 'intro\n```ts\nconst a = 1;\n```\nafter';
    expect(findFenceRegions(text)).toEqual([
      {
        openingLineStart: 6,
        contentStart: 12,
        closingLineStart: 25,
        isClosed: true,
        marker: '```',
        language: 'ts',
      },
    ]);
  });

  it('needs a closing line with at least as many marker characters and nothing after them', () => {
    const text = '````md\n```\n```js\n````\n';
    const [region] = findFenceRegions(text);
    expect(region).toMatchObject({
      marker: '````',
      language: 'md',
      closingLineStart: text.indexOf('````\n', 5),
    });
  });

  it('accepts indented fences, as models write them inside list items', () => {
    const text = '1. Run:\n    ```bash\n    make\n    ```\n';
    expect(findFenceRegions(text)).toMatchObject([{ language: 'bash', isClosed: true }]);
  });

  it('reports a block still being written as open to the end of the text', () => {
    const text = 'x\n```python\nprint(1)\n``';
    expect(findFenceRegions(text)).toMatchObject([{ isClosed: false, closingLineStart: text.length }]);
    expect(findFenceRegions('```ty')).toMatchObject([{ contentStart: 5, language: 'ty', isClosed: false }]);
  });

  it('ignores inline code written with three backticks', () => {
    expect(findFenceRegions('```inline``` text\nmore')).toEqual([]);
  });
});

describe('findFenceAt', () => {
  it('counts the start of the closing line as inside and the start of the opening line as outside', () => {
    const text = 'a\n```\ncode\n```\nb';
    const regions = findFenceRegions(text);
    expect(findFenceAt(regions, text.indexOf('```'))).toBeNull();
    expect(findFenceAt(regions, text.indexOf('code'))).not.toBeNull();
    expect(findFenceAt(regions, text.lastIndexOf('```'))).not.toBeNull();
    expect(findFenceAt(regions, text.indexOf('b'))).toBeNull();
  });
});

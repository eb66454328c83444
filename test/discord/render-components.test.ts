import { describe, expect, it } from 'vitest';
import { renderComponents } from '../../adapters/discord/render-components.ts';
import type { Action, Card } from '../../src/delivery/card.ts';
import { findComponentsV2Problems } from '../fakes/discord/components-v2-rules.ts';

// Whatever the card, the message stays within what Discord takes with IS_COMPONENTS_V2: the fake's
// own rules (40 components, 4,000 characters of text, sections, galleries) judge it.
const files = (count: number, mimeType = 'image/png') =>
  Array.from({ length: count }, (_, index) => ({
    name: `image-${index + 1}.png`,
    mimeType,
    bytes: new Uint8Array(4),
  }));
const actions = (count: number): Action[] =>
  Array.from({ length: count }, (_, index) => ({ id: `parley:test:${index}`, label: `Button ${index + 1}` }));

function problemsOf(payload: ReturnType<typeof renderComponents>, names: readonly string[]) {
  return findComponentsV2Problems(
    { flags: payload.flags, components: payload.components as unknown as unknown[] },
    new Set(names),
  );
}

describe('cards as Components V2', () => {
  it('fits the largest card: 25 long fields, a long description and a wide table, within 4,000 characters', () => {
    const card: Card = {
      title: 'T'.repeat(300),
      description: 'word '.repeat(2_000),
      fields: Array.from({ length: 25 }, (_, index) => ({
        name: `Field ${index}`,
        value: 'v'.repeat(1_100),
      })),
      table: {
        columns: ['a', 'b', 'c'],
        rows: Array.from({ length: 200 }, () => ['x'.repeat(30), 'y', 'z']),
      },
      footer: 'f'.repeat(500),
      tone: 'warning',
    };
    const payload = renderComponents({ card, actions: actions(25) });
    expect(problemsOf(payload, [])).toEqual([]);
    const text = JSON.stringify(payload);
    expect(text).toMatch(/more fields/);
    expect(text).toMatch(/more rows/);
    expect(payload.components[0].accent_color).toBe(0xfee75c);
  });

  it('puts ten images in one gallery and the files beside it, every link naming a file sent', () => {
    const images = files(10);
    const other = [{ name: 'data.json', mimeType: 'application/json', bytes: new Uint8Array(2) }];
    const payload = renderComponents({
      text: '**a prompt**',
      files: [...images, ...other],
      actions: actions(5),
    });
    expect(
      problemsOf(
        payload,
        [...images, ...other].map((file) => file.name),
      ),
    ).toEqual([]);
    const kinds = payload.components[0].components.map((component) => component.type);
    expect(kinds.filter((kind) => kind === 12)).toHaveLength(1);
    expect(kinds).toContain(13);
  });

  it('leaves out the last buttons rather than pass 40 components', () => {
    const other = Array.from({ length: 10 }, (_, index) => ({
      name: `file-${index}.csv`,
      mimeType: 'text/csv',
      bytes: new Uint8Array(2),
    }));
    const payload = renderComponents({
      card: { title: 'Many', footer: 'end' },
      files: other,
      actions: actions(25),
    });
    expect(
      problemsOf(
        payload,
        other.map((file) => file.name),
      ),
    ).toEqual([]);
    expect(JSON.stringify(payload)).toContain('Button 1"');
    expect(JSON.stringify(payload)).not.toContain('Button 25"');
  });

  it('a card without actions has no section, only text', () => {
    const payload = renderComponents({ card: { title: 'Usage', description: 'Nothing spent yet.' } });
    expect(payload.components[0].components.map((component) => component.type)).toEqual([10]);
  });
});

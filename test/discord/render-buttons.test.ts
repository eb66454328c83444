import { describe, expect, it } from 'vitest';
import { renderButtons } from '../../adapters/discord/render-embed.ts';
import type { Action } from '../../src/delivery/card.ts';
import { findComponentProblems } from '../fakes/discord/component-limits.ts';

describe('Discord buttons', () => {
  it('stay within every component rule the fake enforces, whatever actions they are given', () => {
    const longId = `parley:chat.regenerate:${'t'.repeat(120)}`;
    const actions: Action[] = [
      ...Array.from({ length: 30 }, (_, index) => ({
        id: `parley:imagine.vary:token:${index}`,
        label: `Vary ${index}`,
      })),
      { id: 'parley:chat.stop:same', label: 'Stop', style: 'danger' },
      { id: 'parley:chat.stop:same', label: 'Stop again', style: 'danger' },
      { id: `${longId}:1`, label: 'L'.repeat(120) },
      { id: `${longId}:2`, label: 'Another long one' },
    ];
    for (const subset of [actions, actions.slice(28), actions.slice(30)]) {
      const components = renderButtons(subset);
      expect(findComponentProblems({ components })).toEqual([]);
    }
  });
});

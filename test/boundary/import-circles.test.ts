import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from './source-imports.ts';

/**
 * No import circles: files that import each other (directly or round a longer loop, type-only
 * imports included) cannot be read, tested or moved one at a time, and a circle's load order
 * decides which of them sees the other half-built. Issue 39 removed the seven the house had; this
 * fails on a new one and names its files.
 */
const files = ['bin', 'src', 'commands', 'adapters', 'scripts', 'bench', 'faults', 'slack'].flatMap(
  sourceFiles,
);

/** The strongly connected components of more than one file (Tarjan's algorithm), or a file importing itself. */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const indexOf = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    indexOf.set(file, next);
    lowest.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!indexOf.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file) ?? 0, lowest.get(target) ?? 0));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file) ?? 0, indexOf.get(target) ?? 0));
      }
    }
    if (lowest.get(file) !== indexOf.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!indexOf.has(file)) visit(file);
  return circles;
}

describe('import circles', () => {
  it('finds a circle where there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    expect(circlesOf(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has none in the house', () => {
    const known = new Set(files);
    const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => known.has(target))]));
    expect(graph.size).toBeGreaterThan(300);
    expect(circlesOf(graph)).toEqual([]);
  });
});

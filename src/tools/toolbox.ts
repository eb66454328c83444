import type { Tool } from './tool.ts';

/**
 * Every tool parley has right now, by where it comes from: the built-in ones, and each MCP server's,
 * replaced whenever the server lists its tools again (at start, on `tools/list_changed`, after a
 * restart) and emptied while it is down.
 */
export interface Toolbox {
  all(): readonly Tool[];
  /** Puts `tools` in the place of what `source` had. */
  replace(source: string, tools: readonly Tool[]): void;
}

export function createToolbox(initial: readonly Tool[] = []): Toolbox {
  const bySource = new Map<string, readonly Tool[]>();
  for (const tool of initial) bySource.set(tool.source, [...(bySource.get(tool.source) ?? []), tool]);
  let all: readonly Tool[] = [...bySource.values()].flat();
  return {
    all: () => all,
    replace(source, tools) {
      bySource.set(source, tools);
      all = [...bySource.values()].flat();
    },
  };
}

import type { Tool } from './tool.ts';

/** A source of tools that is down now (an MCP server): its tools are missing until it is back. */
export interface ToolOutage {
  /** The source: an MCP server's name in the tools file. */
  readonly source: string;
  /** The tools it offered when it was last up; empty when it has listed none since parley started. */
  readonly lastTools: readonly Tool[];
}

/**
 * Every tool parley has right now, by where it comes from: the built-in ones, and each MCP server's,
 * replaced whenever the server lists its tools again (at start, on `tools/list_changed`, after a
 * restart) and emptied while it is down. A source that is down is remembered as an outage with the
 * tools it had, so a reply that would have offered them can say they are unavailable.
 */
export interface Toolbox {
  all(): readonly Tool[];
  /** Puts `tools` in the place of what `source` had (and ends its outage, if it had one). */
  replace(source: string, tools: readonly Tool[]): void;
  /** Takes `source`'s tools out while it is down, keeping what they were. */
  markDown(source: string): void;
  /** The sources that are down now. */
  outages(): readonly ToolOutage[];
}

export function createToolbox(initial: readonly Tool[] = []): Toolbox {
  const bySource = new Map<string, readonly Tool[]>();
  const down = new Map<string, ToolOutage>();
  for (const tool of initial) bySource.set(tool.source, [...(bySource.get(tool.source) ?? []), tool]);
  let all: readonly Tool[] = [...bySource.values()].flat();
  let outages: readonly ToolOutage[] = [];
  const update = () => {
    all = [...bySource.values()].flat();
    outages = [...down.values()];
  };
  return {
    all: () => all,
    outages: () => outages,
    replace(source, tools) {
      bySource.set(source, tools);
      down.delete(source);
      update();
    },
    markDown(source) {
      const current = bySource.get(source) ?? [];
      // Down again before it listed anything: what it had before still says what it would offer.
      const lastTools = current.length > 0 ? current : (down.get(source)?.lastTools ?? []);
      down.set(source, { source, lastTools });
      bySource.set(source, []);
      update();
    },
  };
}

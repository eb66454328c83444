/** A tool as /config needs to know it: its name, and where it comes from. */
export interface NamedTool {
  readonly name: string;
  /** `built-in`, `memory`, or the MCP server's name in the tools file. */
  readonly source: string;
}

/**
 * What TOOLS can be made of right now: `all`, `none`, `server_*` for each MCP server whose tools
 * are listed (its tools are named `<server>_<tool>`), and every tool's name. A server that is down
 * lists nothing, so its names are missing until it is back.
 */
export function toolPatternChoices(tools: readonly NamedTool[]): string[] {
  const serverPatterns = tools
    .filter((tool) => tool.name.startsWith(`${tool.source}_`))
    .map((tool) => `${tool.source}_*`);
  return [...new Set(['all', 'none', ...serverPatterns, ...tools.map((tool) => tool.name)])];
}

/**
 * Completions of a TOOLS value as it is typed: the last item of the comma-separated list is
 * completed with a pattern or name it begins, the items before it kept as typed; `all` and `none`
 * only stand alone.
 */
export function suggestToolPatterns({
  tools,
  typed,
}: {
  tools: readonly NamedTool[];
  typed: string;
}): string[] {
  const { before, last } = splitLastItem(typed);
  const listed = new Set(itemsOf(before));
  return toolPatternChoices(tools)
    .filter((choice) => (before.trim() === '' ? true : choice !== 'all' && choice !== 'none'))
    .filter((choice) => !listed.has(choice) && choice.startsWith(last.toLowerCase()))
    .map((choice) => `${before}${choice}`);
}

/**
 * Completions of a TOOL_ROLE_IDS value (`tool=role|role, …`) as it is typed: while the last pair
 * has no `=` yet, its tool name is completed (`web_search=`), for the roles to follow.
 */
export function suggestToolRoles({ tools, typed }: { tools: readonly NamedTool[]; typed: string }): string[] {
  const { before, last } = splitLastItem(typed);
  if (last.includes('=')) return [];
  const named = new Set(itemsOf(before).map((item) => item.split('=')[0]));
  return [...new Set(tools.map((tool) => tool.name))]
    .filter((name) => !named.has(name) && name.startsWith(last.toLowerCase()))
    .map((name) => `${before}${name}=`);
}

/** The text up to the last item (with its comma and spaces, as typed), and that item. */
function splitLastItem(typed: string): { before: string; last: string } {
  const comma = typed.lastIndexOf(',');
  const rest = typed.slice(comma + 1);
  const last = rest.trimStart();
  return { before: typed.slice(0, typed.length - last.length), last };
}

function itemsOf(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
}

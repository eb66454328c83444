import type { Actor } from '../access/actor.ts';
import type { PlaceSettings } from '../administration/place-settings.ts';
import { isMemoryPlace } from '../memory/memory-prompt.ts';
import { memoryToolSource } from '../memory/memory-tools.ts';
import type { Tool } from './tool.ts';
import type { ToolOutage } from './toolbox.ts';

/**
 * The tools this person may have the model call here: those TOOLS turns on at the place (a name,
 * `server_*`, or `*`), less those TOOL_ROLE_IDS keeps to roles the person lacks, and the memory
 * tools only where MEMORY is on (never in DMs). Admins pass the role rules, as they pass commands'
 * roles; the place's list holds for them too. Each tool is offered as it fits this person here (the
 * memory tools speak of the place's notes only to those who may change them).
 */
export function governTools({
  tools,
  settings,
  actor,
}: {
  tools: readonly Tool[];
  settings: Pick<PlaceSettings, 'tools' | 'memory' | 'access'>;
  actor: Actor;
}): Tool[] {
  return tools
    .filter((tool) => whyToolIsOff({ tool, settings, actor }) === undefined)
    .map((tool) => tool.tailorFor?.({ actor, settings }) ?? tool);
}

/**
 * Why a tool is not this person's in this reply: switched off at the place (TOOLS, or MEMORY for
 * the memory tools), kept to roles they lack (TOOL_ROLE_IDS), or theirs but missing now because its
 * server is down.
 */
export type ToolOffReason = 'switched-off-here' | 'not-for-this-person' | 'unavailable-now';

export function whyToolIsOff({
  tool,
  settings,
  actor,
}: {
  tool: Pick<Tool, 'name' | 'source'>;
  settings: Pick<PlaceSettings, 'tools' | 'memory'>;
  actor: Actor;
}): Exclude<ToolOffReason, 'unavailable-now'> | undefined {
  if (tool.source === memoryToolSource && !(settings.memory !== 'off' && isMemoryPlace(actor)))
    return 'switched-off-here';
  if (!isOnHere({ toolName: tool.name, settings })) return 'switched-off-here';
  return isAllowedByRoles({ toolName: tool.name, settings, actor }) ? undefined : 'not-for-this-person';
}

/**
 * Whether the place's TOOLS turns this tool name on: a pattern names it (a name, `server_*`, or `*`)
 * and no `-pattern` switches it off (`all,-files_write_file`), so a tool a server adds later follows
 * the rule without being listed.
 */
function isOnHere({
  toolName,
  settings,
}: {
  toolName: string;
  settings: Pick<PlaceSettings, 'tools'>;
}): boolean {
  const name = toolName.toLowerCase();
  const patterns = settings.tools.patterns;
  const isSwitchedOff = patterns.some(
    (pattern) => pattern.startsWith('-') && patternMatches(pattern.slice(1), name),
  );
  return (
    !isSwitchedOff && patterns.some((pattern) => !pattern.startsWith('-') && patternMatches(pattern, name))
  );
}

/** A name, or a prefix ending in `*`. */
function patternMatches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/**
 * Whether TOOL_ROLE_IDS lets this person use the tool here: no roles named for it, a role they hold,
 * or an admin.
 */
export function isAllowedByRoles({
  toolName,
  settings,
  actor,
}: {
  toolName: string;
  settings: Pick<PlaceSettings, 'tools'>;
  actor: Actor;
}): boolean {
  const roles = settings.tools.roleIds[toolName.toLowerCase()];
  if (roles === undefined || roles.length === 0 || actor.isAdmin) return true;
  return actor.roleIds.some((roleId) => roles.includes(roleId));
}

/**
 * Whether a source that is down would have offered this person a tool here: one of the tools it had
 * when last up passes the rules; before it ever listed any, whether TOOLS turns on a name of it
 * (`<server>_…`), and TOOL_ROLE_IDS lets them have one of the names TOOLS lists for it.
 */
export function isOutageForThisPerson({
  outage,
  settings,
  actor,
}: {
  outage: ToolOutage;
  settings: Pick<PlaceSettings, 'tools' | 'memory'>;
  actor: Actor;
}): boolean {
  if (outage.lastTools.length > 0) {
    return outage.lastTools.some((tool) => whyToolIsOff({ tool, settings, actor }) === undefined);
  }
  const prefix = `${outage.source.toLowerCase()}_`;
  return settings.tools.patterns.some((pattern) => {
    if (pattern.startsWith('-')) return false;
    if (!pattern.endsWith('*')) {
      return pattern.startsWith(prefix) && isAllowedByRoles({ toolName: pattern, settings, actor });
    }
    const start = pattern.slice(0, -1);
    return prefix.startsWith(start) || start.startsWith(prefix);
  });
}

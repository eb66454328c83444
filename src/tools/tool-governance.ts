import type { Actor } from '../access/actor.ts';
import type { PlaceSettings } from '../administration/place-settings.ts';
import { isMemoryPlace } from '../memory/memory-prompt.ts';
import { memoryToolSource } from '../memory/memory-tools.ts';
import type { Tool } from './tool.ts';

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
  const rules = settings.tools;
  const hasMemory = settings.memory !== 'off' && isMemoryPlace(actor);
  const offered = tools.filter((tool) => {
    if (tool.source === memoryToolSource && !hasMemory) return false;
    const name = tool.name.toLowerCase();
    const isOn = rules.patterns.some((pattern) =>
      pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
    );
    if (!isOn) return false;
    return isAllowedByRoles({ toolName: name, settings, actor });
  });
  return offered.map((tool) => tool.tailorFor?.({ actor, settings }) ?? tool);
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

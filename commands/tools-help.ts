import type { Actor } from '../src/access/actor.ts';
import { type ConversationKey, placeOfConversation } from '../src/conversation/turn.ts';
import { memoryToolSource } from '../src/memory/memory-tools.ts';
import { isActingTool } from '../src/tools/tool.ts';
import { governTools } from '../src/tools/tool-governance.ts';
import type { CommandServices } from './define-command.ts';

/** Tools listed in /help at most; a server with dozens would bury the commands. */
const maxListedTools = 30;

/**
 * The /help section on tools: those the model may call for this person here (the place's TOOLS and
 * TOOL_ROLE_IDS applied, as a reply applies them), marking the ones that ask first. Nothing when
 * parley has no tools at all; an MCP server that is down has none until it is back.
 */
export async function toolsHelpLines({
  services,
  user,
  conversationKey,
}: {
  services: Pick<CommandServices, 'toolbox' | 'places'>;
  user: Actor;
  conversationKey: ConversationKey;
}): Promise<string[]> {
  const all = services.toolbox.all();
  // The memory tools are always in the toolbox; without any other tool, /help has nothing to say.
  const hasOtherTools = all.some((tool) => tool.source !== memoryToolSource);
  const settings = await services.places.settingsAt(placeOfConversation(conversationKey));
  const tools = governTools({ tools: all, settings, actor: user });
  if (tools.length === 0) return hasOtherTools ? ['', 'Tools: none is on for you here.'] : [];
  const listed = tools
    .slice(0, maxListedTools)
    .map((tool) => `\`${tool.name}\`${isActingTool(tool) ? ' ✋' : ''} — ${tool.title}`);
  const more = tools.length - listed.length;
  return [
    '',
    `Tools I may use when I answer you here (✋ asks you first):`,
    ...listed,
    ...(more > 0 ? [`…and ${more} more.`] : []),
  ];
}

import { placeOfConversation } from '../../src/conversation/turn.ts';
import { memoryToolSource } from '../../src/memory/memory-tools.ts';
import { formatCost } from '../../src/spending/prices.ts';
import { isActingTool, type Tool } from '../../src/tools/tool.ts';
import { governTools, isOutageForThisPerson, whyToolIsOff } from '../../src/tools/tool-governance.ts';
import { type CommandContext, defineCommand } from '../define-command.ts';

/** Tools listed with their details at most; the rest are counted. */
const maxListedTools = 40;

/**
 * /tools: the tools the model may call for you here (the place's TOOLS and TOOL_ROLE_IDS applied as a
 * reply applies them), which ask you first, what a call costs, which are switched off here, and which
 * servers are down. Always private.
 */
export const toolsCommand = defineCommand({
  name: 'tools',
  description: 'Which tools parley may use for you here, which ask you first, and what they cost',
  options: {},
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ conversationKey, user, responder, services }) {
    const settings = await services.places.settingsAt(placeOfConversation(conversationKey));
    const everyTool = services.toolbox.all();
    const yours = governTools({ tools: everyTool, settings, actor: user });
    // Memory has a setting of its own (MEMORY, /memory): its tools are not listed as switched off.
    const offHere = everyTool.filter(
      (tool) =>
        tool.source !== memoryToolSource && whyToolIsOff({ tool, settings, actor: user }) !== undefined,
    );
    const down = services.toolbox
      .outages()
      .filter((outage) => isOutageForThisPerson({ outage, settings, actor: user }));
    const lines = [
      yours.length === 0
        ? 'No tool is on for you here.'
        : `Tools parley may use for you here (✋ asks you first; prices are per call):`,
      ...yours.slice(0, maxListedTools).map(lineOf),
      ...(yours.length > maxListedTools ? [`…and ${yours.length - maxListedTools} more.`] : []),
      ...(offHere.length === 0
        ? []
        : [`Switched off for you here: ${offHere.map((tool) => `\`${tool.name}\``).join(', ')}.`]),
      ...down.map(
        (outage) => `⚠ The ${outage.source} tools are unavailable right now (their server is down).`,
      ),
      ...(await connectorLines({ services, conversationKey, user })),
    ];
    await responder.send({ text: lines.join('\n'), isPrivate: true });
  },
});

/**
 * The tools file's connectors, whose tools act as the person (or the place): which are connected,
 * and how to connect the others (/connections).
 */
async function connectorLines({
  services,
  conversationKey,
  user,
}: Pick<CommandContext<unknown>, 'services' | 'conversationKey' | 'user'>): Promise<string[]> {
  if (!services.connectors || services.connectors.servers.length === 0) return [];
  const listed = await services.connectors.list({ actor: user, conversationKey });
  return listed.map(({ server, kind, connection }) => {
    const whose = kind === 'owner' ? 'this place’s' : 'your';
    return connection
      ? `🔌 ${server} tools act with ${whose} connected account.`
      : `🔌 ${server} tools need ${whose} connection: \`/connections connect ${server}\`${kind === 'owner' ? ' (admins)' : ''}.`;
  });
}

function lineOf(tool: Tool): string {
  const price = tool.priceNanos > 0 ? ` · ${formatCost(tool.priceNanos)}` : '';
  return `• \`${tool.name}\`${isActingTool(tool) ? ' ✋' : ''} — ${tool.title}${price}`;
}

import type { Tool as McpToolListing } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.ts';
import type { Tool, ToolAnnotations, ToolOutput, ToolRunContext } from './tool.ts';
import type { McpServerSettings } from './tools-file.ts';

/** Calls one tool on the server, as it is connected now (or says it is not). */
export type CallMcpTool = (request: {
  name: string;
  arguments: Record<string, unknown>;
  timeoutMs: number;
  context: ToolRunContext;
}) => Promise<ToolOutput>;

/** OpenAI's rule for function names, which the gateway passes on. */
const maxNameLength = 64;
/** Descriptions are the server's words in every prompt: enough to choose a tool, not a manual. */
const maxDescriptionCharacters = 2_000;

/**
 * The tools a server listed, as parley's `Tool`s: named `<server>_<tool>` (letters, digits, `_`
 * and `-`, at most 64), only those the owner enabled, with MCP's annotations or the owner's
 * overrides of them, their price (the tool's own, or the server's), and the server's deadline and
 * result cap.
 */
export function toolsOfServer({
  settings,
  listed,
  call,
  logger,
}: {
  settings: McpServerSettings;
  listed: readonly McpToolListing[];
  call: CallMcpTool;
  logger: Logger;
}): Tool[] {
  const tools: Tool[] = [];
  const names = new Set<string>();
  for (const listing of listed) {
    if (!isEnabled(settings.enabledTools, listing.name)) continue;
    const name = toolName(settings.name, listing.name);
    if (names.has(name.toLowerCase())) {
      logger.warn(
        { server: settings.name, tool: listing.name, name },
        'two tools of an MCP server have the same name once made a function name; the second is left out',
      );
      continue;
    }
    names.add(name.toLowerCase());
    const label = listing.title ?? listing.annotations?.title ?? listing.name;
    tools.push({
      name,
      title: `${label} (${settings.name})`,
      description: (listing.description ?? label).slice(0, maxDescriptionCharacters),
      inputSchema: listing.inputSchema as Record<string, unknown>,
      annotations: annotationsOf({ settings, listing }),
      source: settings.name,
      priceNanos: settings.priceNanosByTool[listing.name] ?? settings.priceNanos,
      deadlineMs: settings.deadlineMs,
      maxResultCharacters: settings.maxResultCharacters,
      describeCall: (toolArguments) => `🔧 ${label} (${settings.name})${argumentPreview(toolArguments)}`,
      run: ({ arguments: toolArguments, context }) =>
        call({ name: listing.name, arguments: toolArguments, timeoutMs: settings.deadlineMs, context }),
    });
  }
  return tools;
}

/** `<server>_<tool>`, with every character a function name may not hold made `_`. */
export function toolName(server: string, tool: string): string {
  return `${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, maxNameLength);
}

/**
 * The owner's override (the tool's own, then `*`), else the server's hint, else MCP's defaults for
 * a tool that says nothing: not read-only, destructive, open-world (the specification's, so an
 * unannotated tool asks before it runs).
 */
function annotationsOf({
  settings,
  listing,
}: {
  settings: McpServerSettings;
  listing: McpToolListing;
}): ToolAnnotations {
  const own = settings.annotationOverrides[listing.name] ?? {};
  const all = settings.annotationOverrides['*'] ?? {};
  const hints = listing.annotations ?? {};
  return {
    isReadOnly: own.readOnlyHint ?? all.readOnlyHint ?? hints.readOnlyHint ?? false,
    isDestructive: own.destructiveHint ?? all.destructiveHint ?? hints.destructiveHint ?? true,
    isOpenWorld: own.openWorldHint ?? all.openWorldHint ?? hints.openWorldHint ?? true,
  };
}

function isEnabled(patterns: readonly string[] | undefined, name: string): boolean {
  if (patterns === undefined) return true;
  return patterns.some((pattern) =>
    pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
  );
}

// The first argument's value, short: enough to tell one call from another on a progress line.
function argumentPreview(toolArguments: Record<string, unknown>): string {
  const first = Object.values(toolArguments).find(
    (value) => typeof value === 'string' || typeof value === 'number',
  );
  if (first === undefined) return '';
  const text = String(first).replace(/\s+/g, ' ').trim();
  return text === '' ? '' : `: ${text.length > 60 ? `${text.slice(0, 59)}…` : text}`;
}

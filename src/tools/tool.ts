import type { Actor } from '../access/actor.ts';
import type { PlaceSettings } from '../administration/place-settings.ts';
import type { ConversationKey } from '../conversation/turn.ts';
import type { Logger } from '../log.ts';
import type { Sources } from '../search/sources.ts';

/**
 * What a tool does to the world, as MCP's tool annotations say it (`readOnlyHint`,
 * `destructiveHint`, `openWorldHint`) or the owner's tools file overrides them. A tool that is not
 * read-only acts on the world, so the person who asked approves each call first.
 */
export interface ToolAnnotations {
  readonly isReadOnly: boolean;
  /** It may destroy or overwrite something (only meaningful when not read-only). */
  readonly isDestructive: boolean;
  /** It reaches beyond a closed domain (the web, other people's systems). */
  readonly isOpenWorld: boolean;
}

/** What one reply's tool calls share: who asked and where, the sources found, notes for the person. */
export interface ToolRunContext {
  readonly signal: AbortSignal;
  /** Who asked for the reply. */
  readonly actor: Actor;
  readonly conversationKey: ConversationKey;
  readonly sources: Sources;
  /** What the person should be told (a service down, say), collected for the reply's notes. */
  readonly notices: string[];
  readonly logger: Logger;
  /**
   * Tells only the asker (a Discord DM, a Slack ephemeral message, the terminal's own line): for
   * what is nobody else's business, such as a Connect link. Absent where nobody can be told alone.
   */
  readonly tellAskerPrivately?: (text: string) => Promise<void>;
}

/** A tool's answer, as text for the model. */
export interface ToolOutput {
  readonly text: string;
  /** The call failed in a way the model should hear about (and the progress line show). */
  readonly isError?: boolean;
  /** The links it found or read, for people to see on its step (Slack's task card `sources`). */
  readonly sources?: readonly { readonly title: string; readonly url: string }[];
}

/**
 * A function the model may call: data plus a run function. Built-in tools (web search) and the
 * tools of MCP servers take the same shape and meet the same gate: which are on where, who may use
 * them, what a call costs, how long it may take and how much of its answer the model gets.
 */
export interface Tool {
  /** As offered to the model: letters, digits, `_` and `-` (OpenAI function names). */
  readonly name: string;
  /** For people: the progress line and /help. */
  readonly title: string;
  readonly description: string;
  /** JSON Schema of the arguments. */
  readonly inputSchema: Record<string, unknown>;
  readonly annotations: ToolAnnotations;
  /** `built-in`, or the MCP server's name in the tools file. */
  readonly source: string;
  /** What one call costs, in billionths of a cost unit, counted in the budgets like tokens. */
  readonly priceNanos: number;
  /** The longest one call may take. */
  readonly deadlineMs: number;
  /** The most characters of its answer the model gets; the rest is cut with a note. */
  readonly maxResultCharacters: number;
  /**
   * Whether each call waits for the asker's yes; default: when the tool is not read-only. A tool
   * that changes only what parley keeps about the asker (memory, which they see and control with
   * /memory) need not ask.
   */
  readonly asksApproval?: boolean;
  /**
   * The version of the tool this person is offered here, when it depends on what they may do (the
   * memory tools offer `about: "place"` only to those who may change the place's notes). Absent:
   * the tool as it is.
   */
  tailorFor?(request: { actor: Actor; settings: Pick<PlaceSettings, 'access' | 'memory'> }): Tool;
  /** The progress line while it runs ("🔎 searching: tides Brest"). */
  describeCall(toolArguments: Record<string, unknown>): string;
  run(request: { arguments: Record<string, unknown>; context: ToolRunContext }): Promise<ToolOutput>;
}

/** Whether a tool call needs the asker's yes first. */
export function isActingTool(tool: Tool): boolean {
  return tool.asksApproval ?? !tool.annotations.isReadOnly;
}

/**
 * The attribute names parley's spans carry. The conventions' names come from
 * `@opentelemetry/semantic-conventions` (the GenAI ones from its incubating entry point), never typed
 * by hand; the few that no convention names are parley's own, under `parley.`.
 */
export {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
export {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_URL_TEMPLATE,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';

/** The platform a turn came from: discord, slack, console. */
export const ATTR_PARLEY_PLATFORM = 'parley.platform';
/** The access gate's answer for the turn or command. */
export const ATTR_PARLEY_ACCESS_ALLOWED = 'parley.access.allowed';
/** A command's or button's name (`/summarize`, `chat.regenerate`). */
export const ATTR_PARLEY_COMMAND_NAME = 'parley.command.name';
/** How a reply ended: complete, cut, failed, refused. */
export const ATTR_PARLEY_REPLY_STATUS = 'parley.reply.status';
/** Turns of history read for a reply. */
export const ATTR_PARLEY_HISTORY_TURNS = 'parley.history.turns';
/** An outbound platform call's priority in the queue: first-post, final-write, edit, cosmetic. */
export const ATTR_PARLEY_OUTBOUND_PRIORITY = 'parley.outbound.priority';
/** How long an outbound platform call waited for its rate limits, in milliseconds. */
export const ATTR_PARLEY_OUTBOUND_WAIT_MS = 'parley.outbound.wait_ms';
/** How an acting tool call's wait for approval ended: pressed (Approve or Deny), timed-out. */
export const ATTR_PARLEY_APPROVAL_ENDING = 'parley.approval.ending';
/** Why a span links to another trace: asked for approval, lock handed over, scheduled by. */
export const ATTR_PARLEY_LINK_REASON = 'parley.link.reason';

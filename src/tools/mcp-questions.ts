import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRunContext } from './tool.ts';
import type { McpServerSettings } from './tools-file.ts';

/**
 * Asks the person whose tool call a server is serving the server's question (MCP
 * `elicitation/create`, form mode) and resolves with their answer, a decline, or a cancel when none
 * came in time. Provided where parley can ask people in private (src/connectors, at PUBLIC_URL);
 * without it parley declares no elicitation capability and servers do not ask.
 */
export type AnswerQuestion = (request: {
  settings: McpServerSettings;
  params: ElicitRequestFormParams;
  context: ToolRunContext;
}) => Promise<ElicitResult>;

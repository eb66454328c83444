import type { Logger } from '../log.ts';
import type { GuardedAgents } from '../net/guarded-agents.ts';
import { registerWarning } from '../operations/health.ts';
import type { AnswerQuestion } from './mcp-questions.ts';
import type { McpServerConnection, McpServerState, RetryTiming } from './mcp-server-connection.ts';
import type { Toolbox } from './toolbox.ts';
import type { McpServerSettings } from './tools-file.ts';

/** Every MCP server of the tools file, connected in the background from the moment parley starts. */
export interface McpServers {
  states(): readonly McpServerState[];
  close(): Promise<void>;
}

/**
 * Starts a connection to each server; none is waited for, so a slow or broken server holds up
 * nothing (its tools join the toolbox when it answers). A server that is down shows on /readyz as
 * a warning: parley still answers without its tools. The MCP client is loaded only when the tools
 * file lists a server: loading it takes over a second on a busy machine, which a parley without
 * servers should not spend at start.
 */
export function startMcpServers({
  servers,
  toolbox,
  logger,
  clientVersion,
  retry,
  agents,
  answerQuestion,
}: {
  servers: readonly McpServerSettings[];
  toolbox: Toolbox;
  logger: Logger;
  clientVersion: string;
  retry?: RetryTiming;
  agents?: GuardedAgents;
  /** Asks the asker a server's question mid-call (elicitation); absent, parley declares none. */
  answerQuestion?: AnswerQuestion;
}): McpServers {
  // An OAuth-protected server is reached with each asker's own connection (src/connectors), never
  // with one shared session.
  servers = servers.filter((settings) => settings.transport.kind !== 'http' || !settings.transport.auth);
  if (servers.length === 0) return { states: () => [], close: async () => {} };
  for (const settings of servers) logVariablesOf({ settings, logger });
  let connections: McpServerConnection[] | undefined;
  let isClosed = false;
  const loading = import('./mcp-server-connection.ts').then(
    ({ connectMcpServer }) => {
      if (isClosed) return;
      connections = servers.map((settings) =>
        connectMcpServer({
          settings,
          toolbox,
          logger,
          clientVersion,
          ...(retry ? { retry } : {}),
          ...(agents ? { agents } : {}),
          ...(answerQuestion ? { answerQuestion } : {}),
        }),
      );
    },
    (error: unknown) => {
      logger.error({ err: error }, 'the MCP client could not be loaded; no MCP server is connected');
    },
  );
  const states = (): McpServerState[] =>
    connections?.map((connection) => connection.state()) ??
    servers.map((settings) => ({
      name: settings.name,
      transport: settings.transport.kind,
      status: 'connecting',
      toolCount: 0,
      problem: undefined,
      retryAt: undefined,
      pid: undefined,
    }));
  registerWarning({ topic: 'mcp-servers', warning: () => downWarning(states()) });
  return {
    states,
    async close() {
      isClosed = true;
      await loading;
      await Promise.all((connections ?? []).map((connection) => connection.close()));
    },
  };
}

/**
 * One line a server at start: which of the environment's variables it receives, by name and the
 * field each goes into, never a value (the owner can check that no credential of parley's leaves).
 */
function logVariablesOf({ settings, logger }: { settings: McpServerSettings; logger: Logger }): void {
  const { name, variables, transport } = settings;
  const named = variables.map((variable) => `${variable.name} (${variable.field})`).join(', ');
  // A child process also inherits the SDK's few defaults (PATH, HOME…), none of them parley's.
  const inherited = transport.kind === 'stdio' ? ', besides the usual PATH, HOME, USER, SHELL, TERM' : '';
  logger.info(
    { server: name, variables: variables.map((variable) => variable.name) },
    `MCP server ${name} receives ${named === '' ? 'no variables' : named} from the environment${inherited}`,
  );
}

function downWarning(states: readonly McpServerState[]): string | undefined {
  const down = states.filter((state) => state.status === 'down');
  if (down.length === 0) return undefined;
  const now = Date.now();
  return `MCP servers down, their tools unavailable: ${down
    .map(
      (state) =>
        `${state.name} (${state.problem ?? 'down'}${state.retryAt === undefined ? '' : `; next try in ${Math.max(0, Math.round((state.retryAt - now) / 1000))} s`})`,
    )
    .join(', ')}`;
}

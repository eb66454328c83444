import type { Actor } from '../access/actor.ts';
import type { ConversationKey } from '../conversation/turn.ts';
import type { ConnectorAuth, McpServerSettings } from '../tools/tools-file.ts';

/** A server of the tools file reached with an OAuth connection (`auth` set). */
export type ConnectorSettings = McpServerSettings & {
  readonly transport: Extract<McpServerSettings['transport'], { kind: 'http' }> & {
    readonly auth: ConnectorAuth;
  };
};

export function isConnectorServer(settings: McpServerSettings): settings is ConnectorSettings {
  return settings.transport.kind === 'http' && settings.transport.auth !== undefined;
}

/** Tells the asker something only they see (their DM, an ephemeral message, the terminal). */
export type TellPrivately = (text: string) => Promise<void>;

/** A single-use Connect link for this asker and server, or why there is none. */
export type BeginConnect = (request: {
  actor: Actor;
  conversationKey: ConversationKey;
  server: string;
  /** A scope the server asked for beyond what the challenge names (step-up). */
  scope?: string;
  tellPrivately?: TellPrivately;
}) => Promise<{ link: string } | { problem: string }>;

import type { Tool, ToolRunContext } from '../tools/tool.ts';
import { isReconnectNeeded, reconnectErrorIn } from './connector-sessions.ts';
import type { BeginConnect, ConnectorSettings } from './connector-settings.ts';

/**
 * The tools a connector adds to a person's turn: `<server>_connect` while they have no connection
 * (it sends them a private Connect link), and the server's own tools wrapped so a connection that
 * stops working is told as a note, never an error wall.
 */

/** A Connect tool: offered while the asker (or, for `auth: "owner"`, the place) has no connection. */
export function connectToolOf({
  settings,
  reason,
  beginConnect,
}: {
  settings: ConnectorSettings;
  reason: 'not-connected' | 'expired';
  beginConnect: BeginConnect;
}): Tool {
  const label = settings.transport.auth.kind === 'owner' ? 'this place' : 'the person';
  return {
    name: `${settings.name}_connect`.slice(0, 64),
    title: `Connect ${settings.name}`,
    description: `${settings.name}'s tools act with ${label}'s own ${settings.name} account, which is ${reason === 'expired' ? 'no longer connected (the connection expired or was revoked)' : 'not connected yet'}. Call this when the person asks for something ${settings.name} would do: it sends them a private link to connect. Then tell them to open it and ask again.`,
    inputSchema: { type: 'object', properties: {} },
    annotations: { isReadOnly: true, isDestructive: false, isOpenWorld: false },
    asksApproval: false,
    source: settings.name,
    priceNanos: 0,
    deadlineMs: 30_000,
    maxResultCharacters: 1_000,
    describeCall: () => `🔌 connecting ${settings.name}`,
    async run({ context }) {
      const begun = await beginConnect({
        actor: context.actor,
        conversationKey: context.conversationKey,
        server: settings.name,
        ...(context.tellAskerPrivately ? { tellPrivately: context.tellAskerPrivately } : {}),
      });
      if ('problem' in begun) return { text: begun.problem, isError: true };
      if (!context.tellAskerPrivately) {
        return {
          text: `Tell the person to connect ${settings.name} with /connections: I cannot send them a private link here.`,
        };
      }
      await context.tellAskerPrivately(
        `🔌 Connect ${settings.name}: ${begun.link}\nThis link is yours alone: it works once, for 10 minutes.`,
      );
      return {
        text: `A private link to connect ${settings.name} was sent to ${context.actor.name}. Tell them to open it, then ask again.`,
      };
    },
  };
}

/**
 * A connector's tools, each reporting a connection that stopped working as a note, not an error
 * wall; a token that lacks a scope the call needs (step-up) gets the asker a new Connect link for it.
 */
export function reportingReconnectsOf({
  settings,
  tools,
  beginConnect,
  hasConnection,
}: {
  settings: ConnectorSettings;
  tools: readonly Tool[];
  beginConnect: BeginConnect;
  /** Whether the asker's connection still stands (a refused token is forgotten by then). */
  hasConnection: (settings: ConnectorSettings, context: ToolRunContext) => Promise<boolean>;
}): Tool[] {
  return tools.map((tool) => ({
    ...tool,
    async run(request) {
      try {
        return await tool.run(request);
      } catch (error) {
        if (!isReconnectNeeded(error)) throw error;
        const { context } = request;
        const scope = reconnectErrorIn(error)?.scope;
        // A token that was refused is forgotten by now (the SDK invalidated it); one that still
        // stands lacked a scope: a step-up, not a lost connection.
        const isStepUp = scope !== undefined && (await hasConnection(settings, context));
        if (scope !== undefined && isStepUp && context.tellAskerPrivately) {
          const begun = await beginConnect({
            actor: context.actor,
            conversationKey: context.conversationKey,
            server: settings.name,
            scope,
            tellPrivately: context.tellAskerPrivately,
          });
          if ('link' in begun) {
            await context.tellAskerPrivately(
              `🔌 ${settings.name} needs more access for this (${scope}): ${begun.link}\nThis link is yours alone: it works once, for 10 minutes.`,
            );
            return {
              text: `${settings.name} needs more access for this; a private link to grant it was sent to ${context.actor.name}. Tell them to open it, then ask again.`,
              isError: true,
            };
          }
        }
        context.notices.push(reconnectNote(settings.name));
        return {
          text: `The person's ${settings.name} connection stopped working (expired or revoked); they need to connect it again (/connections).`,
          isError: true,
        };
      }
    },
  }));
}

/** The note a reply ends with when a connection stopped working. */
export function reconnectNote(server: string): string {
  return `🔌 Your ${server} connection stopped working (expired or revoked): connect it again with /connections.`;
}

import { placeOfConversation } from '../../src/conversation/turn.ts';
import { subcommandOption, textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';

/**
 * /connections: my OAuth connections to the tools file's protected MCP servers (docs/tools.md,
 * Connectors), with the words to connect or disconnect each: `connect <server>` answers with a
 * private, single-use Connect link; `disconnect <server>` forgets the tokens and revokes them at
 * the server where it supports RFC 7009. A server connected for the whole place (`auth: "owner"`)
 * is connected and disconnected by admins. Always private.
 */
export const connectionsCommand = defineCommand({
  name: 'connections',
  description: 'Your connected accounts (GitHub, Linear…) that parley’s tools act as: connect or disconnect',
  options: {
    action: subcommandOption({
      description: 'What to do',
      subcommands: {
        list: { description: 'Show your connections', optionNames: [] },
        connect: { description: 'Get a private link to connect a server', optionNames: ['server'] },
        disconnect: { description: 'Disconnect a server and revoke its token', optionNames: ['server'] },
      },
    }),
    server: textOption({
      description: 'Which server, as the tools file names it',
      isPositional: true,
      maxLength: 40,
    }),
  },
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ input, conversationKey, user, responder, services }) {
    const connectors = services.connectors;
    if (!connectors || connectors.servers.length === 0) {
      await responder.send({ text: 'No server of parley’s tools file needs a connection.', isPrivate: true });
      return;
    }
    const action = input.action ?? 'list';
    if (action !== 'list' && input.server === undefined) {
      await responder.send({
        text: `Name the server: \`/connections ${action} ${connectors.servers[0]?.name ?? 'server'}\`.`,
        isPrivate: true,
      });
      return;
    }
    const server = input.server?.toLowerCase() ?? '';
    if (action === 'connect') {
      const begun = await connectors.beginConnect({ actor: user, conversationKey, server });
      await responder.send({
        text:
          'link' in begun
            ? `🔌 Connect ${server}: ${begun.link}\nThis link is yours alone: it works once, for 10 minutes.`
            : `⚠ ${begun.problem}`,
        isPrivate: true,
      });
      return;
    }
    if (action === 'disconnect') {
      const done = await connectors.disconnect({ actor: user, conversationKey, server });
      const text =
        'problem' in done
          ? `⚠ ${done.problem}`
          : done.result === 'not-connected'
            ? `${server} was not connected.`
            : `${server} is disconnected${done.result === 'revoked' ? ' and its token revoked' : done.result === 'not-supported' ? ' (the server offers no way to revoke its token; it will expire)' : ' (the server did not confirm the revocation; the token is forgotten here)'}.`;
      await responder.send({ text, isPrivate: true });
      return;
    }
    const listed = await connectors.list({ actor: user, conversationKey });
    const place = placeOfConversation(conversationKey);
    const lines = listed.map(({ server: name, kind, connection }) => {
      const whose = kind === 'owner' ? ' (for everyone here)' : '';
      if (!connection) return `• ${name}${whose}: not connected — \`/connections connect ${name}\``;
      const since = new Date(connection.connectedAtMs).toISOString().slice(0, 10);
      const by = kind === 'owner' ? ` by ${connection.connectedBy.name}` : '';
      return `• ${name}${whose}: connected${by} since ${since} — \`/connections disconnect ${name}\``;
    });
    await responder.send({
      text: [`Your connections on ${place.platform}:`, ...lines].join('\n'),
      isPrivate: true,
    });
  },
});

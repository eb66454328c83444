import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { allCommands } from '../../commands/all-commands.ts';
import type { Command } from '../../commands/define-command.ts';
import { runCommand } from '../../commands/run-command.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { truncateText } from '../../src/delivery/card.ts';
import { genericUserMessage } from '../../src/user-facing-error.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { createChannelResponder } from './channel-responder.ts';
import { slackCommandName } from './command-name.ts';
import { parseSlackCommandText } from './command-text.ts';
import { renderFormModal } from './form-modal.ts';
import { escapeControlCharacters } from './markdown-to-mrkdwn.ts';
import { readChannelHistory } from './read-channel-history.ts';
import { recentFileAttachment, recentImageAttachment } from './recent-image.ts';
import { slackActorOf } from './slack-actor.ts';
import { slackHelp } from './slack-guide.ts';
import { resolveSlackText } from './slack-text.ts';

/**
 * Registers every command of `commands/` as a slash command. Each is acknowledged at once (Slack
 * gives 3 s and the work takes longer), then runs against the channel it was typed in: options come
 * from `--flags` in the text, an image option means the most recent image in the channel.
 */
export function registerCommands({ app, adapter }: { app: App; adapter: SlackAdapterContext }): void {
  for (const command of allCommands) {
    app.command(slackCommandName({ prefix: adapter.commandPrefix, command }), async (args) => {
      await args.ack();
      try {
        await runSlashCommand({ adapter, definition: command, args });
      } catch (error) {
        adapter.logger.error({ err: error, command: args.command.command }, 'slack: slash command failed');
        await args
          .respond({
            response_type: 'ephemeral',
            text: `⚠ ${genericUserMessage}`,
          })
          .catch(() => undefined);
      }
    });
  }
}

async function runSlashCommand({
  adapter,
  definition,
  args: { body: payload, respond, client, context },
}: {
  adapter: SlackAdapterContext;
  definition: Command;
  args: SlackCommandMiddlewareArgs & AllMiddlewareArgs;
}): Promise<void> {
  const teamId = context.teamId ?? payload.team_id;
  const channel = payload.channel_id;
  const nameOfUser = async (userId: string) => (await adapter.directory.lookUp({ client, userId })).name;
  const [person, text] = await Promise.all([
    adapter.directory.lookUp({ client, userId: payload.user_id }),
    resolveSlackText({ text: payload.text, botUserId: context.botUserId, nameOfUser }),
  ]);
  const user = slackActorOf({
    person,
    userGroups: adapter.userGroups,
    client,
    teamId,
    channel: { id: channel, name: payload.channel_name },
  });
  const notes: string[] = [];
  const responder = createChannelResponder({
    notes,
    place: { client, teamId, channel, threadTs: undefined, recipientUserId: user.id },
    context: adapter.delivery,
    respond,
    attribution: attributionOf({ userId: user.id, typed: `${payload.command} ${text}` }),
    openForm: async (form) => {
      await client.views.open({ trigger_id: payload.trigger_id, view: renderFormModal(form) });
    },
  });
  await runCommand({
    command: definition,
    rawOptions: parseSlackCommandText({
      options: definition.options,
      text,
      recentImage: () =>
        recentImageAttachment({
          client,
          channel,
          threadTs: undefined,
          botToken: adapter.botTokenFor(client),
          maxBytes: adapter.maxImageBytes,
        }),
      recentFile: () =>
        recentFileAttachment({
          client,
          channel,
          threadTs: undefined,
          botToken: adapter.botTokenFor(client),
          maxBytes: adapter.services.maxDocumentBytes,
        }),
    }),
    conversationKey: conversationKeyOf({ platform: 'slack', workspace: teamId, channel }),
    user,
    responder,
    services: adapter.services,
    readRecentMessages: (limit) =>
      readChannelHistory({
        client,
        channel,
        threadTs: undefined,
        limit,
        botUserId: context.botUserId,
        directory: adapter.directory,
        onNote: (note) => notes.push(note),
      }),
    platformHelp: slackHelp(adapter.commandPrefix === '' ? undefined : prefixNote(adapter.commandPrefix)),
    platformTimeZone: person.timeZone,
  });
}

// Slack does not show others who ran a command, so the first public answer says it.
function attributionOf({ userId, typed }: { userId: string; typed: string }): string {
  const shown = truncateText(typed.trim().replace(/\s+/g, ' '), 200).replaceAll('`', "'");
  return `<@${userId}> used \`${escapeControlCharacters(shown)}\``;
}

// /help lists the commands by their names everywhere; here they carry the prefix.
function prefixNote(prefix: string): string {
  const names = allCommands.map((command) => `\`${slackCommandName({ prefix, command })}\``).join(', ');
  return `In this workspace my commands start with \`/${prefix}\`: ${names}.`;
}

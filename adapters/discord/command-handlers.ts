import { type ChatInputCommandInteraction, MessageFlags } from 'discord.js';
import { findCommand } from '../../commands/all-commands.ts';
import { formInsteadOfAnswer, isAnswerPrivate, runCommand } from '../../commands/run-command.ts';
import { botUserIdOf, type DiscordAdapterContext } from './adapter-context.ts';
import { rawOptionsOf } from './command-registration.ts';
import { discordActorOf } from './discord-actor.ts';
import { discordGuide } from './discord-guide.ts';
import { formModal } from './form-modal.ts';
import { historyUnavailableToUserInstall, isServerInstall } from './installation.ts';
import { discordConversationKey } from './message-turn.ts';
import { cannotSeeChannelError, isMissingAccess, readChannelHistory } from './read-channel-history.ts';
import { responderForInteraction } from './responder-for-interaction.ts';
import { threadRenameCapability } from './thread-rename-capability.ts';

/** Runs a slash command: deferred within Discord's 3 s, then answered through the interaction. */
export async function runSlashCommand({
  interaction,
  adapter,
}: {
  interaction: ChatInputCommandInteraction;
  adapter: DiscordAdapterContext;
}): Promise<void> {
  const command = findCommand(interaction.commandName);
  if (!command) {
    adapter.logger.warn({ commandName: interaction.commandName }, 'unknown slash command');
    await interaction.reply({
      content: 'I do not know that command any more.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  const rawOptions = rawOptionsOf({
    interaction,
    command,
    maxImageBytes: adapter.maxImageBytes,
    maxDocumentBytes: adapter.services.maxDocumentBytes,
  });
  // A command that opens a form for these options (/system alone) shows it as the first response.
  const form = await formInsteadOfAnswer({
    command,
    rawOptions,
    conversationKey: discordConversationKey({
      guildId: interaction.guildId,
      channelId: interaction.channelId,
      channel: interaction.channel,
    }),
    user: discordActorOf(interaction),
    services: adapter.services,
  });
  if (form) {
    await interaction.showModal(formModal({ form, adapter }));
    return;
  }
  // Within Discord's 3 s, before anything slow; the answer then replaces the "thinking…" reply.
  // Its privacy is fixed here and cannot change later, so an answer known to be private is
  // private from the start rather than a public "thinking…" deleted afterwards.
  const isPrivate = isAnswerPrivate({ command, rawOptions });
  await interaction.deferReply(isPrivate ? { flags: MessageFlags.Ephemeral } : {});
  const channel = interaction.channel;
  const interactionResponder = responderForInteraction({
    interaction,
    deferral: isPrivate ? 'private-reply' : 'public-reply',
    adapter,
  });
  const responder = Object.assign(interactionResponder, threadRenameCapability({ channel, adapter }));
  try {
    await runCommand({
      command,
      rawOptions,
      conversationKey: discordConversationKey({
        guildId: interaction.guildId,
        channelId: interaction.channelId,
        channel,
      }),
      user: discordActorOf(interaction),
      responder,
      services: adapter.services,
      platformNotices: adapter.platformNotices,
      platformHelp: discordGuide(adapter).join('\n'),
      readRecentMessages: async (limit) => {
        if (!isServerInstall(interaction) && !channel) throw historyUnavailableToUserInstall();
        // A channel the client never heard of may still be readable; Discord says if it is not.
        const readable =
          channel ??
          (await adapter.client.channels.fetch(interaction.channelId).catch((error: unknown) => {
            throw isMissingAccess(error) ? cannotSeeChannelError() : error;
          }));
        if (!readable?.isSendable()) return [];
        return readChannelHistory({ channel: readable, limit, botUserId: botUserIdOf(adapter) });
      },
    });
  } finally {
    responder.dispose();
  }
}

import {
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  Client,
  Events,
  GatewayIntentBits,
  type GuildMember,
  type Interaction,
  type Message,
  MessageFlags,
  Partials,
  PermissionFlagsBits,
} from 'discord.js';
import { allCommands, findCommand } from '../../commands/all-commands.ts';
import { replyWithActions } from '../../commands/chat-reply.ts';
import type { CommandServices, CommandUser } from '../../commands/define-command.ts';
import { runAction } from '../../commands/run-action.ts';
import { runCommand } from '../../commands/run-command.ts';
import type { Config } from '../../src/config.ts';
import { createRequestScheduler, type RequestScheduler } from '../../src/delivery/request-scheduler.ts';
import type { Logger } from '../../src/log.ts';
import { createChannelSurface, noPings } from './channel-surface.ts';
import { rawOptionsOf, toDiscordCommand } from './command-registration.ts';
import { discordLimits } from './discord-limits.ts';
import { createInteractionResponder } from './interaction-responder.ts';
import { buildTurnFromMessage, conversationKeyOfMessage, discordConversationKey } from './message-turn.ts';
import { readChannelHistory } from './read-channel-history.ts';

export interface DiscordAdapter {
  readonly client: Client;
  /** Stops taking new messages and disconnects. */
  stop(): Promise<void>;
}

/**
 * parley on Discord: answers mentions, DMs, replies to it, threads it answered in and the channels
 * configured to get every message; registers every command as a slash command; runs buttons.
 */
export async function startDiscordAdapter({
  services,
  discord,
  maxImageBytes,
  logger: parentLogger,
}: {
  services: CommandServices;
  discord: NonNullable<Config['discord']>;
  maxImageBytes: number;
  logger: Logger;
}): Promise<DiscordAdapter> {
  const logger = parentLogger.child({ adapter: 'discord' });
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    // DMs arrive on channels the client has not cached; without these partials they are dropped.
    partials: [Partials.Channel, Partials.Message],
    rest: { api: discord.apiUrl },
    allowedMentions: noPings,
  });
  const scheduler = createRequestScheduler({ requestsPerWindow: discordLimits.schedulerRequestsPerSecond });
  let isStopping = false;

  client.on(Events.MessageCreate, (message) => {
    if (isStopping) return;
    handleMessage({ message, client, services, discord, scheduler, maxImageBytes, logger }).catch(
      (error: unknown) =>
        logger.error({ err: error, channelId: message.channelId }, 'message handling failed'),
    );
  });
  client.on(Events.InteractionCreate, (interaction) => {
    if (isStopping) return;
    handleInteraction({
      interaction,
      services,
      maxImageBytes,
      logger,
      botUserId: client.user?.id ?? '',
    }).catch((error: unknown) =>
      logger.error({ err: error, interactionId: interaction.id }, 'interaction handling failed'),
    );
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  client.rest.on('rateLimited', (info) =>
    logger.warn(
      { route: info.route, retryAfterMs: info.retryAfter, isGlobal: info.global },
      'discord rate limit hit',
    ),
  );

  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(discord.token);
  await ready;
  logger.info({ botUserId: client.user?.id, guildCount: client.guilds.cache.size }, 'connected to discord');
  await registerCommands({ client, discord, logger });

  return {
    client,
    async stop() {
      // Take no new work, let stopped replies post their last words, then disconnect.
      isStopping = true;
      await services.activeReplies.stopAll(5_000);
      await client.destroy();
    },
  };
}

async function registerCommands({
  client,
  discord,
  logger,
}: {
  client: Client;
  discord: NonNullable<Config['discord']>;
  logger: Logger;
}): Promise<void> {
  const body = allCommands.map(toDiscordCommand);
  const application = client.application;
  if (!application) throw new Error('discord READY carried no application');
  if (discord.applicationId && discord.applicationId !== application.id) {
    logger.warn(
      { configured: discord.applicationId, actual: application.id },
      'DISCORD_APPLICATION_ID differs from the token',
    );
  }
  // Bulk overwrite: the registered set always equals commands/, with nothing stale left behind.
  if (discord.guildIds.length > 0) {
    for (const guildId of discord.guildIds) await application.commands.set(body, guildId);
  } else {
    await application.commands.set(body);
  }
  logger.info({ commandCount: body.length, guildIds: discord.guildIds }, 'slash commands registered');
}

async function handleMessage({
  message,
  client,
  services,
  discord,
  scheduler,
  maxImageBytes,
  logger,
}: {
  message: Message;
  client: Client;
  services: CommandServices;
  discord: NonNullable<Config['discord']>;
  scheduler: RequestScheduler;
  maxImageBytes: number;
  logger: Logger;
}): Promise<void> {
  const botUserId = client.user?.id;
  if (!botUserId || message.author.bot || message.system || !message.channel.isSendable()) return;
  if (!(await shouldAnswer({ message, botUserId, discord, services }))) return;
  const channel = message.channel;
  if (message.guild && 'permissionsFor' in channel) {
    const permissions = channel.permissionsFor(botUserId);
    const canSend = channel.isThread()
      ? permissions?.has(PermissionFlagsBits.SendMessagesInThreads)
      : permissions?.has(PermissionFlagsBits.SendMessages);
    if (canSend === false) {
      logger.warn({ channelId: channel.id }, 'mentioned in a channel where it may not send messages');
      return;
    }
  }
  const turn = await buildTurnFromMessage({
    message,
    botUserId,
    maxImageBytes,
    maxDocumentBytes: services.maxDocumentBytes,
  });
  const surface = createChannelSurface({ channel, scheduler, replyTo: message, botUserId });
  surface.showTyping?.().catch(() => undefined);
  await replyWithActions({ services, turn, surface });
}

async function shouldAnswer({
  message,
  botUserId,
  discord,
  services,
}: {
  message: Message;
  botUserId: string;
  discord: NonNullable<Config['discord']>;
  services: CommandServices;
}): Promise<boolean> {
  if (!message.guild) return true;
  if (message.mentions.users.has(botUserId)) return true;
  if (message.mentions.repliedUser?.id === botUserId) return true;
  const channel = message.channel;
  const channelIds = [channel.id, 'parentId' in channel ? channel.parentId : null];
  if (channelIds.some((id) => id && discord.replyAllChannelIds.includes(id))) return true;
  // A thread the bot has answered in (or is answering in right now) is a conversation it is part of.
  if (channel.isThread()) {
    const key = conversationKeyOfMessage(message);
    return services.engine.isBusy(key) || (await services.history.load(key)).length > 0;
  }
  return false;
}

async function handleInteraction({
  interaction,
  services,
  maxImageBytes,
  logger,
  botUserId,
}: {
  interaction: Interaction;
  services: CommandServices;
  maxImageBytes: number;
  logger: Logger;
  botUserId: string;
}): Promise<void> {
  if (interaction.isAutocomplete()) return answerAutocomplete(interaction, services);
  if (interaction.isChatInputCommand())
    return runSlashCommand({ interaction, services, maxImageBytes, logger, botUserId });
  if (interaction.isButton()) return pressButton({ interaction, services });
}

async function runSlashCommand({
  interaction,
  services,
  maxImageBytes,
  logger,
  botUserId,
}: {
  interaction: ChatInputCommandInteraction;
  services: CommandServices;
  maxImageBytes: number;
  logger: Logger;
  botUserId: string;
}): Promise<void> {
  const command = findCommand(interaction.commandName);
  if (!command) {
    logger.warn({ commandName: interaction.commandName }, 'unknown slash command');
    await interaction.reply({
      content: 'I do not know that command any more.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  // Within Discord's 3 s, before anything slow; the answer then replaces the "thinking…" reply.
  await interaction.deferReply();
  const channel = interaction.channel;
  await runCommand({
    command,
    rawOptions: rawOptionsOf({
      interaction,
      command,
      maxImageBytes,
      maxDocumentBytes: services.maxDocumentBytes,
    }),
    conversationKey: discordConversationKey({
      guildId: interaction.guildId,
      channelId: interaction.channelId,
      channel,
    }),
    user: commandUserOf(interaction),
    responder: createInteractionResponder({ interaction }),
    services,
    readRecentMessages: async (limit) => {
      if (!channel?.isSendable()) return [];
      return readChannelHistory({ channel, limit, botUserId });
    },
  });
}

async function pressButton({
  interaction,
  services,
}: {
  interaction: ButtonInteraction;
  services: CommandServices;
}): Promise<void> {
  // Stop changes nothing by itself (the stopped reply edits its own message); the rest answer anew.
  if (interaction.customId.includes(':chat.stop:')) await interaction.deferUpdate();
  else await interaction.deferReply();
  await runAction({
    actionId: interaction.customId,
    user: commandUserOf(interaction),
    responder: createInteractionResponder({ interaction }),
    services,
    signal: new AbortController().signal,
  });
}

async function answerAutocomplete(
  interaction: AutocompleteInteraction,
  services: CommandServices,
): Promise<void> {
  const command = findCommand(interaction.commandName);
  const focused = interaction.options.getFocused(true);
  const suggest = command?.options[focused.name]?.suggest;
  const suggestions = suggest
    ? suggest({ typed: String(focused.value), models: services.models.selectable })
    : [];
  await interaction.respond(
    suggestions.slice(0, 25).map((value) => ({ name: value.slice(0, 100), value: value.slice(0, 100) })),
  );
}

function commandUserOf(interaction: ChatInputCommandInteraction | ButtonInteraction): CommandUser {
  const member = interaction.member;
  const roleIds = !member
    ? []
    : Array.isArray(member.roles)
      ? member.roles
      : [...(member as GuildMember).roles.cache.keys()];
  return {
    id: interaction.user.id,
    name:
      (member && 'displayName' in member ? member.displayName : undefined) ??
      interaction.user.displayName ??
      interaction.user.username,
    isAdmin:
      interaction.memberPermissions?.any([
        PermissionFlagsBits.Administrator,
        PermissionFlagsBits.ManageGuild,
      ]) ?? !interaction.guild,
    roleIds,
  };
}

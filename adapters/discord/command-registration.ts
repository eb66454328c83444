import {
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandOption,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  type ChatInputCommandInteraction,
  type Client,
  InteractionContextType,
  PermissionFlagsBits,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  type RESTPostAPIContextMenuApplicationCommandsJSONBody,
  type RESTPutAPIApplicationCommandsJSONBody,
} from 'discord.js';
import { allCommands } from '../../commands/all-commands.ts';
import type { CommandOption, RawOptionValue } from '../../commands/command-options.ts';
import type { Command } from '../../commands/define-command.ts';
import { type MessageAction, messageActions } from '../../commands/message-actions.ts';
import { truncateText } from '../../src/delivery/card.ts';
import type { Logger } from '../../src/log.ts';
import type { DiscordSettings } from './discord-config.ts';
import { discordLimits } from './discord-limits.ts';
import { discordDocumentAttachment, discordImageAttachment } from './message-turn.ts';

/**
 * Registers every command of `commands/` by bulk overwrite, so the registered set always equals
 * commands/ with nothing stale left behind: in the configured guilds (instant) or globally.
 */
export async function registerCommands({
  client,
  discord,
  logger,
}: {
  client: Client;
  discord: DiscordSettings;
  logger: Logger;
}): Promise<void> {
  const body = discordCommandBodies();
  const application = client.application;
  if (!application) throw new Error('discord READY carried no application');
  if (discord.applicationId && discord.applicationId !== application.id) {
    logger.warn(
      { configured: discord.applicationId, actual: application.id },
      'DISCORD_APPLICATION_ID differs from the token',
    );
  }
  if (discord.guildIds.length > 0) {
    for (const guildId of discord.guildIds) await application.commands.set(body, guildId);
  } else {
    await application.commands.set(body);
  }
  logger.info({ commandCount: body.length, guildIds: discord.guildIds }, 'slash commands registered');
}

/** Every slash command of commands/ and every message action, as one bulk overwrite. */
export function discordCommandBodies(): RESTPutAPIApplicationCommandsJSONBody {
  return [...allCommands.map(toDiscordCommand), ...messageActions.map(toDiscordMessageCommand)];
}

/**
 * Where a command is offered (application-commands.mdx, "Contexts"): every command to the server's
 * install, in servers and in DMs with the bot; those usable anywhere also to a person's own install
 * (`integration_types` 1), where they work in DMs with friends and group DMs too (`contexts` 2).
 */
function installationOf(isUsableAnywhere: boolean) {
  return isUsableAnywhere
    ? {
        integration_types: [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall],
        contexts: [
          InteractionContextType.Guild,
          InteractionContextType.BotDM,
          InteractionContextType.PrivateChannel,
        ],
      }
    : {
        integration_types: [ApplicationIntegrationType.GuildInstall],
        contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
      };
}

/** A message action as a message command: a name, no description (application-commands.mdx, "Message Commands"). */
export function toDiscordMessageCommand(
  action: MessageAction,
): RESTPostAPIContextMenuApplicationCommandsJSONBody {
  return { type: ApplicationCommandType.Message, name: action.name, ...installationOf(true) };
}

/** A command as Discord's application command JSON: option types, choices, ranges, autocomplete. */
export function toDiscordCommand(command: Command): RESTPostAPIChatInputApplicationCommandsJSONBody {
  return {
    name: command.name,
    description: truncateText(command.description, discordLimits.commandDescription),
    options: discordOptionsOf(command),
    ...installationOf(command.isUsableAnywhere === true && !command.isForAdmins),
    // Only members who may manage the server see an admin command (application-commands.mdx,
    // "Application Command Permissions Object": default_member_permissions, a bit set as a string).
    ...(command.isForAdmins
      ? { default_member_permissions: PermissionFlagsBits.ManageGuild.toString() }
      : {}),
  };
}

// A subcommand option becomes Discord's subcommands, each with the options it names; the base
// command then cannot be run bare (application-commands.mdx, "Subcommands and Subcommand Groups").
function discordOptionsOf(command: Command): APIApplicationCommandOption[] {
  const entries = Object.entries(command.options);
  const subcommandEntry = entries.find(([, option]) => option.kind === 'subcommand');
  const optionsNamed = (names: readonly string[] | undefined) =>
    entries
      .filter(
        ([name, option]) => option.kind !== 'subcommand' && (names === undefined || names.includes(name)),
      )
      // Discord rejects a required option after an optional one.
      .sort(([, first], [, second]) => Number(second.isRequired) - Number(first.isRequired))
      .map(([name, option]) => toDiscordOption(name, option));
  if (!subcommandEntry) return optionsNamed(undefined);
  return Object.entries(subcommandEntry[1].subcommands ?? {}).map(([name, subcommand]) => ({
    type: ApplicationCommandOptionType.Subcommand,
    name,
    description: truncateText(subcommand.description, discordLimits.commandDescription),
    options: optionsNamed(subcommand.optionNames) as APIApplicationCommandBasicOption[],
  }));
}

function toDiscordOption(name: string, option: CommandOption): APIApplicationCommandOption {
  const base = {
    name,
    description: truncateText(option.description, discordLimits.commandDescription),
    required: option.isRequired,
  };
  switch (option.kind) {
    case 'integer':
      return {
        ...base,
        type: ApplicationCommandOptionType.Integer,
        ...(option.minValue === undefined ? {} : { min_value: option.minValue }),
        ...(option.maxValue === undefined ? {} : { max_value: option.maxValue }),
      };
    case 'boolean':
      return { ...base, type: ApplicationCommandOptionType.Boolean };
    case 'image':
    case 'file':
      return { ...base, type: ApplicationCommandOptionType.Attachment };
    case 'choice':
      return {
        ...base,
        type: ApplicationCommandOptionType.String,
        // A choice Discord cannot take (over 100 characters) would fail the whole registration;
        // it stays usable on the other platforms.
        choices: (option.choices ?? [])
          .filter((choice) => choice.length <= discordLimits.choiceValue)
          .slice(0, discordLimits.optionChoices)
          .map((choice) => ({ name: choice, value: choice })),
      };
    case 'user':
      return { ...base, type: ApplicationCommandOptionType.User };
    case 'subcommand':
      throw new Error(`a subcommand option (${name}) is registered as subcommands, not as an option`);
    case 'text':
      return {
        ...base,
        type: ApplicationCommandOptionType.String,
        ...(option.maxLength === undefined ? {} : { max_length: Math.min(option.maxLength, 6_000) }),
        ...(option.suggest ? { autocomplete: true } : {}),
      };
  }
}

/** The options of a slash-command interaction as raw values for the command's schema. */
export function rawOptionsOf({
  interaction,
  command,
  maxImageBytes,
  maxDocumentBytes,
}: {
  interaction: ChatInputCommandInteraction;
  command: Command;
  maxImageBytes: number;
  maxDocumentBytes: number;
}): Record<string, RawOptionValue> {
  const raw: Record<string, RawOptionValue> = {};
  for (const [name, option] of Object.entries(command.options)) {
    if (option.kind === 'subcommand') {
      const subcommand = interaction.options.getSubcommand(false);
      if (subcommand) raw[name] = subcommand;
      continue;
    }
    const given = interaction.options.get(name);
    if (!given) continue;
    if (option.kind === 'image') {
      if (given.attachment)
        raw[name] = discordImageAttachment(given.attachment, maxImageBytes, interaction.client);
    } else if (option.kind === 'file') {
      if (given.attachment)
        raw[name] = discordDocumentAttachment(given.attachment, maxDocumentBytes, interaction.client);
    } else if (given.value !== undefined && given.value !== null) {
      raw[name] = given.value;
    }
  }
  return raw;
}

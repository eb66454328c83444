import {
  type APIApplicationCommandOption,
  ApplicationCommandOptionType,
  type ChatInputCommandInteraction,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import type { CommandOption, RawOptionValue } from '../../commands/command-options.ts';
import type { Command } from '../../commands/define-command.ts';
import { truncateText } from '../../src/delivery/card.ts';
import { discordLimits } from './discord-limits.ts';
import { discordDocumentAttachment, discordImageAttachment } from './message-turn.ts';

/** A command as Discord's application command JSON: option types, choices, ranges, autocomplete. */
export function toDiscordCommand(command: Command): RESTPostAPIChatInputApplicationCommandsJSONBody {
  // Discord rejects a required option after an optional one.
  const options = Object.entries(command.options).sort(
    ([, first], [, second]) => Number(second.isRequired) - Number(first.isRequired),
  );
  return {
    name: command.name,
    description: truncateText(command.description, discordLimits.commandDescription),
    options: options.map(([name, option]) => toDiscordOption(name, option)),
  };
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
        choices: (option.choices ?? [])
          .slice(0, discordLimits.optionChoices)
          .map((choice) => ({ name: choice, value: choice })),
      };
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

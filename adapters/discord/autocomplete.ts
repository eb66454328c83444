import type { AutocompleteInteraction } from 'discord.js';
import { findCommand } from '../../commands/all-commands.ts';
import type { CommandServices } from '../../commands/define-command.ts';
import { discordLimits } from './discord-limits.ts';

/** Suggests values for the option being typed, from the command's own `suggest`. */
export async function answerAutocomplete({
  interaction,
  services,
}: {
  interaction: AutocompleteInteraction;
  services: CommandServices;
}): Promise<void> {
  const command = findCommand(interaction.commandName);
  const focused = interaction.options.getFocused(true);
  const suggest = command?.options[focused.name]?.suggest;
  const suggestions = suggest
    ? suggest({ typed: String(focused.value), models: services.models.selectable })
    : [];
  await interaction.respond(
    suggestions
      .slice(0, discordLimits.autocompleteChoices)
      .map((value) => ({ name: value.slice(0, 100), value: value.slice(0, 100) })),
  );
}

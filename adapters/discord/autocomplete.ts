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
  // What else the person filled in (a setting, for /config's value), by option name.
  const others = Object.fromEntries(
    interaction.options.data
      .flatMap((option) => (option.options === undefined ? [option] : option.options))
      .filter((option) => option.name !== focused.name)
      .map((option) => [option.name, option.value]),
  );
  const suggestions = suggest
    ? suggest({
        typed: String(focused.value),
        models: services.models.selectable,
        tools: services.toolbox.all(),
        others,
      })
    : [];
  // A suggestion longer than a choice's value may be is left out, not cut: a cut one would be
  // another value (a list of tools missing its end).
  await interaction.respond(
    suggestions
      .filter((value) => value.length >= 1 && value.length <= discordLimits.choiceValue)
      .slice(0, discordLimits.autocompleteChoices)
      .map((value) => ({ name: value, value })),
  );
}

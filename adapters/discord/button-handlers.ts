import type { ButtonInteraction } from 'discord.js';
import { runAction } from '../../commands/run-action.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';
import { commandUserOf } from './command-user.ts';
import { createInteractionResponder } from './interaction-responder.ts';

/** Runs a clicked button: Stop, Regenerate, Continue, Vary. */
export async function pressButton({
  interaction,
  adapter,
}: {
  interaction: ButtonInteraction;
  adapter: DiscordAdapterContext;
}): Promise<void> {
  // Stop changes nothing by itself (the stopped reply edits its own message); the rest answer anew.
  if (interaction.customId.includes(':chat.stop:')) await interaction.deferUpdate();
  else await interaction.deferReply();
  await runAction({
    actionId: interaction.customId,
    user: commandUserOf(interaction),
    responder: createInteractionResponder({ interaction }),
    services: adapter.services,
    signal: new AbortController().signal,
  });
}

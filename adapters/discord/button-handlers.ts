import type { ButtonInteraction } from 'discord.js';
import { actionOfId } from '../../commands/all-actions.ts';
import { runAction } from '../../commands/run-action.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';
import { discordActorOf } from './discord-actor.ts';
import { responderForInteraction } from './responder-for-interaction.ts';

/** Runs a clicked button: Stop, Regenerate, Continue, Vary. */
export async function pressButton({
  interaction,
  adapter,
}: {
  interaction: ButtonInteraction;
  adapter: DiscordAdapterContext;
}): Promise<void> {
  // A press that changes only its own message (Stop: the stopped reply edits it) shows no
  // "thinking…"; the rest answer anew.
  const isInPlace = actionOfId(interaction.customId)?.acknowledgement === 'in-place';
  if (isInPlace) await interaction.deferUpdate();
  else await interaction.deferReply();
  const responder = responderForInteraction({
    interaction,
    deferral: isInPlace ? 'update' : 'public-reply',
    adapter,
  });
  try {
    await runAction({
      actionId: interaction.customId,
      user: discordActorOf(interaction),
      responder,
      services: adapter.services,
      signal: new AbortController().signal,
    });
  } finally {
    responder.dispose();
  }
}

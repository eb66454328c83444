import type { ButtonInteraction } from 'discord.js';
import { decodeActionId } from '../../commands/action-store.ts';
import { runAction } from '../../commands/run-action.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';
import { commandUserOf } from './command-user.ts';
import { responderForInteraction } from './responder-for-interaction.ts';

/** Runs a clicked button: Stop, Regenerate, Continue, Vary. */
export async function pressButton({
  interaction,
  adapter,
}: {
  interaction: ButtonInteraction;
  adapter: DiscordAdapterContext;
}): Promise<void> {
  // Stop changes nothing by itself (the stopped reply edits its own message), so it shows no
  // "thinking…"; the rest answer anew.
  const isStop = decodeActionId(interaction.customId)?.verb === 'chat.stop';
  if (isStop) await interaction.deferUpdate();
  else await interaction.deferReply();
  const responder = responderForInteraction({
    interaction,
    deferral: isStop ? 'update' : 'public-reply',
    adapter,
  });
  try {
    await runAction({
      actionId: interaction.customId,
      user: commandUserOf(interaction),
      responder,
      services: adapter.services,
      signal: new AbortController().signal,
    });
  } finally {
    responder.dispose();
  }
}

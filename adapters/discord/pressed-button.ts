import type { APIActionRowComponent, APIComponentInMessageActionRow, ButtonInteraction } from 'discord.js';
import { noPings } from './channel-surface.ts';

type ActionRow = APIActionRowComponent<APIComponentInMessageActionRow>;

/**
 * Takes the pressed button off its message and leaves everything else as it is. The message is
 * read afresh first: the press may be older than a change the reply itself made to its buttons.
 * Needs the press to have been deferred as an update, which makes `@original` that message.
 */
export async function removePressedButton(interaction: ButtonInteraction): Promise<void> {
  const current = await interaction.fetchReply();
  const rows = current.components.map((row) => row.toJSON() as ActionRow);
  const kept = withoutButton(rows, interaction.customId);
  if (JSON.stringify(kept) === JSON.stringify(rows)) return;
  await interaction.editReply({ components: kept, allowedMentions: noPings });
}

/** Rows without the component of `customId`; a row left empty goes too (Discord refuses empty rows). */
export function withoutButton(rows: readonly ActionRow[], customId: string): ActionRow[] {
  return rows
    .map((row) => ({
      ...row,
      components: row.components.filter(
        (component) => !('custom_id' in component) || component.custom_id !== customId,
      ),
    }))
    .filter((row) => row.components.length > 0);
}

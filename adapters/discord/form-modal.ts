import {
  LabelBuilder,
  MessageFlags,
  ModalBuilder,
  type ModalSubmitInteraction,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { findCommand } from '../../commands/all-commands.ts';
import { truncateText } from '../../src/delivery/card.ts';
import type { Form } from '../../src/delivery/form.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';
import { discordActorOf } from './discord-actor.ts';

const formModalPrefix = 'parley.form:';

// interactions/receiving-and-responding.mdx, "Modal": a title of at most 45 characters and 1-5
// components; components/reference.mdx: a Label's text at most 45 characters, its description 100,
// a Text Input's value and max_length at most 4000.
const modalLimits = { title: 45, components: 5, label: 45, description: 100, value: 4_000 } as const;

/** A form of commands/ as a Discord modal; its command and context wait under a token in the custom_id. */
export function formModal({ form, adapter }: { form: Form; adapter: DiscordAdapterContext }): ModalBuilder {
  const token = adapter.pendingForms.hold({ commandName: form.commandName, context: form.context });
  const fields = form.sections.flatMap((section) => section.fields).slice(0, modalLimits.components);
  return new ModalBuilder()
    .setCustomId(`${formModalPrefix}${token}`)
    .setTitle(truncateText(form.title, modalLimits.title))
    .addLabelComponents(
      fields.map((field) => {
        const input = new TextInputBuilder()
          .setCustomId(field.name)
          .setStyle(field.isMultiline ? TextInputStyle.Paragraph : TextInputStyle.Short)
          .setMaxLength(modalLimits.value)
          .setRequired(false);
        if (field.initialValue) input.setValue(truncateText(field.initialValue, modalLimits.value));
        const label = new LabelBuilder()
          .setLabel(truncateText(field.label, modalLimits.label))
          .setTextInputComponent(input);
        return field.hint ? label.setDescription(truncateText(field.hint, modalLimits.description)) : label;
      }),
    );
}

/** A submitted form modal, handed to the command that opened it; false when it is not one of ours. */
export async function submitFormModal({
  interaction,
  adapter,
}: {
  interaction: ModalSubmitInteraction;
  adapter: DiscordAdapterContext;
}): Promise<boolean> {
  if (!interaction.customId.startsWith(formModalPrefix)) return false;
  const pending = adapter.pendingForms.take(interaction.customId.slice(formModalPrefix.length));
  const command = pending ? findCommand(pending.commandName) : undefined;
  if (!pending || !command?.submitForm) {
    await interaction.reply({
      content: 'That form waited too long (or I restarted meanwhile); please open it again.',
      flags: MessageFlags.Ephemeral,
    });
    return true;
  }
  const values = Object.fromEntries(
    interaction.fields.fields
      .filter((field) => 'value' in field)
      .map((field) => [field.customId, String((field as { value: string }).value)]),
  );
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const outcome = await command.submitForm({
    submission: { values, context: pending.context },
    user: discordActorOf(interaction),
    services: adapter.services,
  });
  // A Discord modal closes on submit, so problems come back as a message rather than on the fields.
  const content =
    'message' in outcome
      ? outcome.message
      : Object.entries(outcome.problems)
          .map(([field, problem]) => `⚠ ${field}: ${problem}`)
          .join('\n');
  await interaction.editReply({ content });
  return true;
}

import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type GuildMember,
  type MessageContextMenuCommandInteraction,
  type ModalSubmitInteraction,
  PermissionFlagsBits,
} from 'discord.js';
import type { CommandUser } from '../../commands/define-command.ts';

/** The person behind an interaction, with the roles and rights `/model` and `/system` look at. */
export function commandUserOf(
  interaction:
    | ChatInputCommandInteraction
    | ButtonInteraction
    | MessageContextMenuCommandInteraction
    | ModalSubmitInteraction,
): CommandUser {
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
    isInDirectMessage: !interaction.guild,
  };
}

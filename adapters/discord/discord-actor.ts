import {
  type BaseInteraction,
  ChannelType,
  type GuildMember,
  InteractionContextType,
  type Message,
  PermissionFlagsBits,
  type PermissionsBitField,
  type User,
} from 'discord.js';
import type { Actor, ActorContext } from '../../src/access/actor.ts';
import { isServerInstall } from './installation.ts';

/** The interactions people reach parley with: commands, buttons, message actions, forms, autocomplete. */
type PersonInteraction = Pick<
  BaseInteraction,
  'user' | 'member' | 'memberPermissions' | 'context' | 'channel' | 'authorizingIntegrationOwners'
>;

/**
 * The one place a Discord person becomes an `Actor`, for every interaction. Admin comes only from
 * the member's real permissions in a server (Administrator or Manage Server), never from the absence
 * of a server: in a DM nobody is an admin. The context comes from the interaction's own `context`
 * (Guild, BotDM, PrivateChannel) and whether a server install authorised it
 * (receiving-and-responding.mdx, "Interaction Context Types", `authorizing_integration_owners`).
 */
export function discordActorOf(interaction: PersonInteraction): Actor {
  const member = interaction.member;
  const roleIds = !member
    ? []
    : Array.isArray(member.roles)
      ? member.roles
      : [...(member as GuildMember).roles.cache.keys()];
  return {
    id: interaction.user.id,
    name: displayNameOf(interaction.user, member),
    isAdmin: isAdminBy(interaction.memberPermissions),
    roleIds,
    context: interactionContextOf(interaction),
  };
}

/** A message written to parley: in a server it is installed in, or in a DM with it. */
export function discordMessageActorOf(message: Message): Actor {
  return {
    id: message.author.id,
    name: displayNameOf(message.author, message.member),
    isAdmin: isAdminBy(message.member?.permissions ?? null),
    roleIds: [...(message.member?.roles.cache.keys() ?? [])],
    context: message.guild === null ? 'direct-message' : 'server',
  };
}

function interactionContextOf(interaction: PersonInteraction): ActorContext {
  if (interaction.context === InteractionContextType.BotDM) return 'direct-message';
  if (interaction.context === InteractionContextType.PrivateChannel) {
    return interaction.channel?.type === ChannelType.GroupDM ? 'group-direct-message' : 'user-install';
  }
  // In a server: through the server's install, or only through the person's own.
  return isServerInstall(interaction) ? 'server' : 'user-install';
}

function isAdminBy(permissions: Readonly<PermissionsBitField> | null | undefined): boolean {
  return permissions?.any([PermissionFlagsBits.Administrator, PermissionFlagsBits.ManageGuild]) ?? false;
}

function displayNameOf(user: User, member: unknown): string {
  const memberName =
    member && typeof member === 'object' && 'displayName' in member && typeof member.displayName === 'string'
      ? member.displayName
      : undefined;
  return memberName ?? user.displayName ?? user.username;
}

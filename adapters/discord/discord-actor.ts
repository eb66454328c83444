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
  return discordMemberActorOf({
    user: message.author,
    member: message.member,
    context: message.guild === null ? 'direct-message' : 'server',
  });
}

/**
 * A person from their member object in a server (none outside one): the roles it holds and admin
 * from its real permissions. Messages and deferred work (a schedule's run, from a member fetched
 * then: discord-actor-now.ts) read the same facts the same way.
 */
export function discordMemberActorOf({
  user,
  member,
  context,
}: {
  user: User;
  member: GuildMember | null;
  context: ActorContext;
}): Actor {
  return {
    id: user.id,
    name: displayNameOf(user, member),
    isAdmin: isAdminBy(member?.permissions ?? null),
    roleIds: [...(member?.roles.cache.keys() ?? [])],
    context,
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

import { ApplicationIntegrationType, type BaseInteraction, PermissionFlagsBits } from 'discord.js';
import { UserFacingError } from '../../src/user-facing-error.ts';

/**
 * Whether the interaction came through a server's install of parley. Without one it came through
 * a person's own install (a DM with friends, a group DM, a server without the bot): parley then
 * sees only what the interaction carries and answers only through it
 * (receiving-and-responding.mdx, `authorizing_integration_owners`).
 */
export function isServerInstall(interaction: Pick<BaseInteraction, 'authorizingIntegrationOwners'>): boolean {
  return interaction.authorizingIntegrationOwners?.[ApplicationIntegrationType.GuildInstall] !== undefined;
}

/** What a person hears when a command needs channel history where only their own install runs. */
export function historyUnavailableToUserInstall(): UserFacingError {
  return new UserFacingError({
    message: 'channel history unavailable to a user install',
    userMessage:
      'I cannot read the messages here: parley is installed for you, not for this place, so I only see what you hand me. Use "Ask parley about this" or "Extract data" on a message, or add parley to the server to summarize its channels.',
  });
}

/**
 * What parley needs in a server's channels: read and answer, in threads too, open threads, quote the
 * message it answers, show embeds and upload files. docs/discord.md lists the same.
 */
export const serverPermissions =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.CreatePublicThreads |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles;

/**
 * The link that adds parley to a server (a guild install, integration_type 0) with the scopes
 * `bot applications.commands` and `serverPermissions` (oauth2.mdx, "Bot Authorization Flow").
 */
export function serverInviteLink(applicationId: string): string {
  const query = new URLSearchParams({
    client_id: applicationId,
    integration_type: '0',
    scope: 'bot applications.commands',
    permissions: serverPermissions.toString(),
  });
  return `https://discord.com/oauth2/authorize?${query.toString().replaceAll('+', '%20')}`;
}

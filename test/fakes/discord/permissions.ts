/**
 * The permissions the fake can take away from the bot in a channel, to test that a bot says plainly
 * what it lacks. Names are Discord's, in kebab case.
 */
export type BotPermission =
  | 'view-channel'
  | 'send-messages'
  | 'send-messages-in-threads'
  | 'embed-links'
  | 'attach-files'
  | 'read-message-history'
  | 'add-reactions'
  | 'mention-everyone'
  | 'use-application-commands'
  | 'administrator'
  | 'manage-guild'
  | 'manage-threads'
  | 'create-public-threads';

// Bit positions from Discord's permission table (topics/permissions.mdx, "Bitwise Permission
// Flags"); written out here so the fake does not import the client library it is meant to test.
const permissionBits: Record<BotPermission, bigint> = {
  administrator: 1n << 3n,
  'manage-guild': 1n << 5n,
  'add-reactions': 1n << 6n,
  'view-channel': 1n << 10n,
  'send-messages': 1n << 11n,
  'embed-links': 1n << 14n,
  'attach-files': 1n << 15n,
  'read-message-history': 1n << 16n,
  'mention-everyone': 1n << 17n,
  'use-application-commands': 1n << 31n,
  'manage-threads': 1n << 34n,
  'create-public-threads': 1n << 35n,
  'send-messages-in-threads': 1n << 38n,
};

/**
 * What @everyone may do in the fake's guilds: read, write, start public threads and use commands,
 * nothing more (Discord gives a new server's @everyone Create Public Threads too).
 */
export const everyonePermissions = bitsOf([
  'view-channel',
  'send-messages',
  'send-messages-in-threads',
  'create-public-threads',
  'embed-links',
  'attach-files',
  'read-message-history',
  'add-reactions',
  'use-application-commands',
]);

/** The bitfield of a set of permissions. */
export function bitsOf(permissions: readonly BotPermission[]): bigint {
  let bits = 0n;
  for (const permission of permissions) {
    bits |= permissionBits[permission];
  }
  return bits;
}

/** Whether `bits` grants `permission`. */
export function hasPermission(bits: bigint, permission: BotPermission): boolean {
  return (bits & permissionBits[permission]) !== 0n;
}

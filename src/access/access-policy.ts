import type { DirectMessageMode } from '../environment/spend-access-values.ts';

/**
 * The facts about whoever asks parley something, as the platform knows them. Adapters pass these
 * facts; whether they may is decided here, the same way on every platform.
 */
export interface Requester {
  readonly userId: string;
  /** Discord role ids, or Slack user-group ids. */
  readonly roleIds: readonly string[];
  /** A server or workspace admin (Discord Manage Server; Slack admin or owner). */
  readonly isAdmin: boolean;
  readonly isDirectMessage: boolean;
}

/** Who may use parley, and where: the environment's lists, overridden per server by /config. */
export interface AccessRules {
  readonly allowUserIds: readonly string[];
  readonly blockUserIds: readonly string[];
  readonly allowRoleIds: readonly string[];
  readonly blockRoleIds: readonly string[];
  readonly allowChannelIds: readonly string[];
  readonly blockChannelIds: readonly string[];
  readonly directMessages: DirectMessageMode;
  /** Commands only people with one of the roles may use, by command name. */
  readonly commandRoleIds: Readonly<Record<string, readonly string[]>>;
}

/** Why a request was refused; each has one short sentence for the person. */
export type AccessRefusal =
  | 'blocked-user'
  | 'not-allowed-user'
  | 'blocked-channel'
  | 'not-allowed-channel'
  | 'direct-messages-off'
  | 'direct-messages-allowlisted'
  | 'command-role';

export type AccessDecision =
  | { readonly isAllowed: true }
  | { readonly isAllowed: false; readonly refusal: AccessRefusal };

const allowed: AccessDecision = { isAllowed: true };

/**
 * Whether `requester` may use `command` (a chat message counts as `chat`) in `channelId`. Blocks win
 * over allows; channel lists do not apply to direct messages, which ACCESS_DMS governs. Admins are
 * never held back by the allow lists of people and roles or by a command's roles, and may always use
 * /config; for everything else the block lists and channel rules hold for them too.
 */
export function decideAccess({
  rules,
  requester,
  channelId,
  command,
}: {
  rules: AccessRules;
  requester: Requester;
  channelId: string;
  command: string;
}): AccessDecision {
  // Whoever runs the server can always reach /config, from anywhere, to undo a rule.
  if (command === 'config' && requester.isAdmin) return allowed;
  const hasRole = (roleIds: readonly string[]) =>
    requester.roleIds.some((roleId) => roleIds.includes(roleId));
  if (rules.blockUserIds.includes(requester.userId) || hasRole(rules.blockRoleIds)) {
    return { isAllowed: false, refusal: 'blocked-user' };
  }
  if (requester.isDirectMessage) {
    if (rules.directMessages === 'off') return { isAllowed: false, refusal: 'direct-messages-off' };
    if (rules.directMessages === 'allowlisted' && !rules.allowUserIds.includes(requester.userId)) {
      return { isAllowed: false, refusal: 'direct-messages-allowlisted' };
    }
  } else {
    if (rules.blockChannelIds.includes(channelId)) return { isAllowed: false, refusal: 'blocked-channel' };
    if (rules.allowChannelIds.length > 0 && !rules.allowChannelIds.includes(channelId)) {
      return { isAllowed: false, refusal: 'not-allowed-channel' };
    }
  }
  if (requester.isAdmin) return allowed;
  const hasAllowList = rules.allowUserIds.length > 0 || rules.allowRoleIds.length > 0;
  if (hasAllowList && !rules.allowUserIds.includes(requester.userId) && !hasRole(rules.allowRoleIds)) {
    return { isAllowed: false, refusal: 'not-allowed-user' };
  }
  const commandRoles = rules.commandRoleIds[command];
  if (commandRoles !== undefined && commandRoles.length > 0 && !hasRole(commandRoles)) {
    return { isAllowed: false, refusal: 'command-role' };
  }
  return allowed;
}

/** The private notice for a refusal: short, and never naming who else may. */
export function describeRefusal({ refusal, command }: { refusal: AccessRefusal; command: string }): string {
  switch (refusal) {
    case 'blocked-user':
    case 'not-allowed-user':
      return 'Sorry, you cannot use parley here. A server admin decides who can.';
    case 'blocked-channel':
    case 'not-allowed-channel':
      return 'parley does not answer in this channel; a server admin chose where it does.';
    case 'direct-messages-off':
      return 'parley does not take direct messages here; please ask in a channel.';
    case 'direct-messages-allowlisted':
      return 'parley takes direct messages only from some people; please ask in a channel.';
    case 'command-role':
      return `/${command} is only for some roles here. A server admin decides who can use it.`;
  }
}

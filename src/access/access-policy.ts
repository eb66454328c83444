import type { DirectMessageMode } from '../environment/spend-access-values.ts';
import type { Actor, ActorContext } from './actor.ts';

/** Who may use parley, and where: the environment's lists, overridden per server by /config. */
export interface AccessRules {
  readonly allowUserIds: readonly string[];
  readonly blockUserIds: readonly string[];
  readonly allowRoleIds: readonly string[];
  readonly blockRoleIds: readonly string[];
  readonly allowChannelIds: readonly string[];
  readonly blockChannelIds: readonly string[];
  /** DMs with parley (ACCESS_DMS). */
  readonly directMessages: DirectMessageMode;
  /** Group DMs (ACCESS_GROUP_DMS): everyone in them can spend the owner's balance. */
  readonly groupDirectMessages: DirectMessageMode;
  /** Commands of a person's own install, where parley is not installed (ACCESS_USER_INSTALLS). */
  readonly userInstalls: DirectMessageMode;
  /** Commands only people with one of the roles may use, by command name. */
  readonly commandRoleIds: Readonly<Record<string, readonly string[]>>;
  /**
   * Roles whose people may change what everyone at the place shares (ACCESS_SHARED_ROLE_IDS), as
   * admins always may: the place's memory notes, said by a person or asked of the model.
   */
  readonly sharedWriterRoleIds: readonly string[];
}

/** Why a request was refused; each has one short sentence for the person. */
export type AccessRefusal =
  | 'blocked-user'
  | 'not-allowed-user'
  | 'blocked-channel'
  | 'not-allowed-channel'
  | 'direct-messages-off'
  | 'direct-messages-allowlisted'
  | 'group-direct-messages-off'
  | 'user-installs-off'
  | 'command-role'
  | 'not-admin'
  | 'not-a-shared-writer'
  | 'not-the-asker';

/**
 * What everyone at a place shares, which one person (or the model on their turn) may change only
 * with the `write-shared` capability: the place's memory notes.
 */
export type SharedThing = 'place-memory';

/**
 * What someone asks to do: use a command (a chat message counts as `chat`), administer the place
 * (/config, another person's /usage), change what the place shares (its memory notes, whether a
 * person or the model on their turn asks), or stop a reply, which only its asker and admins may.
 */
export type Capability =
  | { readonly kind: 'command'; readonly name: string }
  | { readonly kind: 'administer' }
  | { readonly kind: 'write-shared'; readonly thing: SharedThing }
  | { readonly kind: 'stop-reply'; readonly askerId: string };

export type AccessDecision =
  | { readonly isAllowed: true }
  | { readonly isAllowed: false; readonly refusal: AccessRefusal };

const allowed: AccessDecision = { isAllowed: true };

/** The setting that governs a context outside a server's channels, and its refusal when off. */
const contextRules: Partial<
  Record<ActorContext, { mode: (rules: AccessRules) => DirectMessageMode; offRefusal: AccessRefusal }>
> = {
  'direct-message': { mode: (rules) => rules.directMessages, offRefusal: 'direct-messages-off' },
  'group-direct-message': {
    mode: (rules) => rules.groupDirectMessages,
    offRefusal: 'group-direct-messages-off',
  },
  'user-install': { mode: (rules) => rules.userInstalls, offRefusal: 'user-installs-off' },
};

/**
 * Whether `actor` may do `capability` in `channelId`. Blocks win over allows; channel lists apply
 * in servers, and the owner's settings decide whether DMs, group DMs and user installs are served
 * at all. Admins are never held back by the allow lists of people and roles or by a command's
 * roles, and may always administer; for everything else the block lists and channel rules hold for
 * them too. The terminal is its owner's own machine.
 */
export function decideAccess({
  rules,
  actor,
  channelId,
  capability,
}: {
  rules: AccessRules;
  actor: Actor;
  channelId: string;
  capability: Capability;
}): AccessDecision {
  if (actor.context === 'terminal') return allowed;
  const commandName = capability.kind === 'command' ? capability.name : undefined;
  // Whoever runs the server can always reach /config, from anywhere, to undo a rule.
  if ((commandName === 'config' || capability.kind === 'administer') && actor.isAdmin) return allowed;
  // A person's data is theirs to see and delete wherever they reach parley, blocked or not; another
  // person's needs `administer`, which the commands ask for separately.
  if (commandName === 'forget' || commandName === 'export') return allowed;
  const hasRole = (roleIds: readonly string[]) => actor.roleIds.some((roleId) => roleIds.includes(roleId));
  if (rules.blockUserIds.includes(actor.id) || hasRole(rules.blockRoleIds)) {
    return { isAllowed: false, refusal: 'blocked-user' };
  }
  const contextRule = contextRules[actor.context];
  if (contextRule) {
    const mode = contextRule.mode(rules);
    if (mode === 'off') return { isAllowed: false, refusal: contextRule.offRefusal };
    if (mode === 'allowlisted' && !rules.allowUserIds.includes(actor.id)) {
      return { isAllowed: false, refusal: 'direct-messages-allowlisted' };
    }
  } else {
    if (rules.blockChannelIds.includes(channelId)) return { isAllowed: false, refusal: 'blocked-channel' };
    if (rules.allowChannelIds.length > 0 && !rules.allowChannelIds.includes(channelId)) {
      return { isAllowed: false, refusal: 'not-allowed-channel' };
    }
  }
  if (capability.kind === 'administer') return { isAllowed: false, refusal: 'not-admin' };
  if (capability.kind === 'write-shared' && !holdsSharedWriting({ rules, actor })) {
    return { isAllowed: false, refusal: 'not-a-shared-writer' };
  }
  if (capability.kind === 'stop-reply' && capability.askerId !== actor.id && !actor.isAdmin) {
    return { isAllowed: false, refusal: 'not-the-asker' };
  }
  if (actor.isAdmin) return allowed;
  const hasAllowList = rules.allowUserIds.length > 0 || rules.allowRoleIds.length > 0;
  if (hasAllowList && !rules.allowUserIds.includes(actor.id) && !hasRole(rules.allowRoleIds)) {
    return { isAllowed: false, refusal: 'not-allowed-user' };
  }
  const commandRoles = commandName === undefined ? undefined : rules.commandRoleIds[commandName];
  if (commandRoles !== undefined && commandRoles.length > 0 && !hasRole(commandRoles)) {
    return { isAllowed: false, refusal: 'command-role' };
  }
  return allowed;
}

/**
 * Whether the person may change what the place shares, once they may be answered there at all:
 * admins, and people with a role of ACCESS_SHARED_ROLE_IDS. The tool governance asks it to decide
 * whether the model is offered `about: "place"` on their turn.
 */
export function holdsSharedWriting({ rules, actor }: { rules: AccessRules; actor: Actor }): boolean {
  return actor.isAdmin || actor.roleIds.some((roleId) => rules.sharedWriterRoleIds.includes(roleId));
}

/** The private notice for a refusal: short, and never naming who else may. */
export function describeRefusal({
  refusal,
  capability,
}: {
  refusal: AccessRefusal;
  capability: Capability;
}): string {
  const command = capability.kind === 'command' ? capability.name : 'this';
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
    case 'group-direct-messages-off':
      return 'parley does not answer in group DMs; please ask in a server channel or a DM with parley.';
    case 'user-installs-off':
      return 'parley is not installed here, and its owner does not serve it where it is only installed for you. Please ask in a server that has parley, or in a DM with parley.';
    case 'command-role':
      return `/${command} is only for some roles here. A server admin decides who can use it.`;
    case 'not-admin':
      return 'Only a server admin can do that.';
    case 'not-a-shared-writer':
      return 'Only a server admin (or a role they chose) can change what parley keeps for everyone here.';
    case 'not-the-asker':
      return 'Only the person who asked (or a server admin) can stop this reply.';
  }
}

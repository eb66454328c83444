import { invalidFormBody } from './discord-api-error.ts';
import { hasPermission } from './permissions.ts';
import type { FakeChannel, FakeUser, World } from './world.ts';

// resources/message.mdx, "Allowed Mentions Object": what a message's mentions notify, as the
// `mentions`, `mention_roles` and `mention_everyone` of the stored message.

type MentionType = 'users' | 'roles' | 'everyone';

/** An `allowed_mentions` object as Discord reads it. */
export interface AllowedMentions {
  parse: ReadonlySet<MentionType>;
  users: readonly string[];
  roles: readonly string[];
  /** For replies: whether the replied-to author is mentioned (default false). */
  repliedUser: boolean;
}

/** Who a message notifies. */
export interface MessageMentions {
  userIds: string[];
  roleIds: string[];
  everyone: boolean;
}

/**
 * The default when a request carries no `allowed_mentions`: "In regular messages, all mention types
 * are parsed"; "In interactions and webhooks, only user mentions are parsed".
 */
export function defaultAllowedMentions(kind: 'message' | 'webhook'): AllowedMentions {
  return {
    parse: new Set<MentionType>(kind === 'message' ? ['users', 'roles', 'everyone'] : ['users']),
    users: [],
    roles: [],
    repliedUser: false,
  };
}

/**
 * Reads a request's `allowed_mentions`, or `undefined` when it has none. `parse` is "mutually
 * exclusive" with `users` (and with `roles`) of the same type: Discord refuses both, with 50035.
 */
export function parseAllowedMentions(json: Record<string, unknown>): AllowedMentions | undefined {
  const value = json.allowed_mentions;
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const parse = new Set(
    (Array.isArray(fields.parse) ? fields.parse : []).filter(
      (type): type is MentionType => type === 'users' || type === 'roles' || type === 'everyone',
    ),
  );
  const users = Array.isArray(fields.users) ? fields.users.map(String) : [];
  const roles = Array.isArray(fields.roles) ? fields.roles.map(String) : [];
  for (const [type, list] of [
    ['users', users],
    ['roles', roles],
  ] as const) {
    if (parse.has(type) && list.length > 0) {
      throw invalidFormBody([
        {
          path: ['allowed_mentions', type],
          error: {
            code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
            message: `parse:["${type}"] and ${type}: [ids] are mutually exclusive.`,
          },
        },
      ]);
    }
  }
  return { parse, users, roles, repliedUser: fields.replied_user === true };
}

/**
 * Who a message by `author` notifies. A mention counts only when it is in the content and allowed:
 * by `parse`, or by id in `users`/`roles`. Roles need to be mentionable, or the author to have
 * Mention Everyone, which `@everyone`/`@here` always need. `allowed` is undefined for a person's
 * message written in Discord's app, where everything in it counts.
 */
export function resolveMentions(options: {
  world: World;
  channel: FakeChannel;
  author: FakeUser;
  content: string;
  allowed: AllowedMentions | undefined;
  repliedAuthorId: string | null;
}): MessageMentions {
  const { world, channel, content, allowed } = options;
  const contentUserIds = [...content.matchAll(/<@!?(\d{17,20})>/g)].flatMap((match) => match[1] ?? []);
  const contentRoleIds = [...content.matchAll(/<@&(\d{17,20})>/g)].flatMap((match) => match[1] ?? []);
  const saysEveryone = /@(everyone|here)\b/.test(content);
  const mayMentionEveryone =
    allowed === undefined ||
    (options.author.id === world.bot.id &&
      hasPermission(world.botPermissionsIn(channel), 'mention-everyone'));
  const guild = channel.guildId === null ? undefined : world.guilds.get(channel.guildId);
  const isAllowed = (type: MentionType, ids: readonly string[], id: string) =>
    allowed === undefined || allowed.parse.has(type) || ids.includes(id);

  const userIds = contentUserIds.filter(
    (id) => world.users.has(id) && isAllowed('users', allowed?.users ?? [], id),
  );
  if (options.repliedAuthorId !== null && (allowed === undefined || allowed.repliedUser)) {
    userIds.push(options.repliedAuthorId);
  }
  const roleIds = contentRoleIds.filter((id) => {
    const role = guild?.roles.find((candidate) => candidate.id === id);
    return (
      role !== undefined &&
      (role.isMentionable || mayMentionEveryone) &&
      isAllowed('roles', allowed?.roles ?? [], id)
    );
  });
  return {
    userIds: [...new Set(userIds)],
    roleIds: [...new Set(roleIds)],
    everyone: saysEveryone && mayMentionEveryone && (allowed === undefined || allowed.parse.has('everyone')),
  };
}

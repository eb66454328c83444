import type { SnowflakeGenerator } from './snowflake.ts';

/** An application command as registered, with the fields Discord adds (`id`, `version`, ...). */
export interface RegisteredCommand {
  id: string;
  application_id: string;
  /** Set on guild commands. */
  guild_id?: string;
  name: string;
  description: string;
  /** 1 slash command, 2 user, 3 message. */
  type: number;
  options?: Record<string, unknown>[];
  version: string;
  [field: string]: unknown;
}

/** Commands per scope: `'global'` or a guild id. */
export interface CommandRegistry {
  /** Bulk overwrite (`PUT`): replaces the scope's commands, keeping the ids of those that remain. */
  overwrite(scope: string, commands: readonly Record<string, unknown>[]): RegisteredCommand[];
  /** Creates or replaces one command by name (`POST`). */
  upsert(scope: string, command: Record<string, unknown>): RegisteredCommand;
  list(scope: string): RegisteredCommand[];
  /** The command a guild member would run: the guild's own first, then the global one. */
  find(name: string, guildId: string | null, type?: number): RegisteredCommand | undefined;
  clear(): void;
}

/** Creates an empty registry for the application `applicationId`. */
export function createCommandRegistry(ids: SnowflakeGenerator, applicationId: string): CommandRegistry {
  const scopes = new Map<string, RegisteredCommand[]>();

  function register(
    scope: string,
    command: Record<string, unknown>,
    existing: RegisteredCommand[],
  ): RegisteredCommand {
    const type = typeof command.type === 'number' ? command.type : 1;
    const previous = existing.find((entry) => entry.name === command.name && entry.type === type);
    return {
      default_member_permissions: null,
      nsfw: false,
      ...command,
      id: previous?.id ?? ids.next(),
      application_id: applicationId,
      ...(scope === 'global' ? {} : { guild_id: scope }),
      name: String(command.name),
      description: typeof command.description === 'string' ? command.description : '',
      type,
      version: ids.next(),
    };
  }

  return {
    overwrite(scope, commands) {
      const existing = scopes.get(scope) ?? [];
      const registered = commands.map((command) => register(scope, command, existing));
      scopes.set(scope, registered);
      return registered;
    },
    upsert(scope, command) {
      const existing = scopes.get(scope) ?? [];
      const registered = register(scope, command, existing);
      scopes.set(scope, [...existing.filter((entry) => entry.id !== registered.id), registered]);
      return registered;
    },
    list(scope) {
      return [...(scopes.get(scope) ?? [])];
    },
    find(name, guildId, type = 1) {
      // Names are unique per type: a slash command and a message command may share one.
      const matches = (command: RegisteredCommand) => command.name === name && command.type === type;
      const inGuild = guildId === null ? undefined : scopes.get(guildId)?.find(matches);
      return inGuild ?? scopes.get('global')?.find(matches);
    },
    clear() {
      scopes.clear();
    },
  };
}

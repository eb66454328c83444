import { DiscordApiError, errorCodes, invalidFormBody, unknownEntity } from './discord-api-error.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { jsonObject } from './request-body.ts';
import { ok, type RestRequest, type RestRoute } from './rest-route.ts';

/** Application command registration, global and per guild. */
export const commandRoutes: RestRoute[] = [
  ...scopedRoutes('global', '/applications/:applicationId/commands'),
  ...scopedRoutes('guild', '/applications/:applicationId/guilds/:guildId/commands'),
];

function scopedRoutes(kind: 'global' | 'guild', pattern: string): RestRoute[] {
  const common = {
    pattern,
    auth: 'bot',
    bucket: 'other',
    ...(kind === 'guild' ? { majorParameter: 'guildId' } : {}),
  } as const;
  return [
    {
      ...common,
      name: `${kind}-commands-list`,
      method: 'GET',
      handle(context, request) {
        return ok(context.commands.list(scopeOf(context, request)));
      },
    },
    {
      ...common,
      name: `${kind}-commands-overwrite`,
      method: 'PUT',
      handle(context, request) {
        const scope = scopeOf(context, request);
        const { json } = request.body;
        if (!Array.isArray(json)) {
          throw invalidFormBody([
            { path: [], error: { code: 'BASE_TYPE_ARRAY', message: 'Must be an array.' } },
          ]);
        }
        const registered = context.commands.overwrite(scope, json.map(assertCommand));
        context.changes.emit({ type: 'commands-registered', scope });
        return ok(registered);
      },
    },
    {
      ...common,
      name: `${kind}-command-create`,
      method: 'POST',
      handle(context, request) {
        const scope = scopeOf(context, request);
        const registered = context.commands.upsert(scope, assertCommand(jsonObject(request.body)));
        context.changes.emit({ type: 'commands-registered', scope });
        return { status: 201, body: registered };
      },
    },
  ];
}

/** `'global'` or the guild id, after checking the application and the guild exist. */
function scopeOf(context: FakeDiscordContext, request: RestRequest): string {
  if (request.params.applicationId !== context.applicationId) {
    throw new DiscordApiError({ status: 403, code: errorCodes.missingAccess, message: 'Missing Access' });
  }
  const { guildId } = request.params;
  if (guildId === undefined) {
    return 'global';
  }
  if (!context.world.guilds.has(guildId)) {
    throw unknownEntity('Guild', errorCodes.unknownGuild);
  }
  return guildId;
}

/** Discord checks names: 1–32 lower-case characters for slash commands. */
function assertCommand(command: unknown): Record<string, unknown> {
  const fields = (typeof command === 'object' && command !== null ? command : {}) as Record<string, unknown>;
  const isSlashCommand = fields.type === undefined || fields.type === 1;
  const name = fields.name;
  if (typeof name !== 'string' || (isSlashCommand && !/^[-_\p{Ll}\p{N}]{1,32}$/u.test(name))) {
    throw invalidFormBody([
      {
        path: ['name'],
        error: { code: 'APPLICATION_COMMAND_INVALID_NAME', message: 'Command name is invalid' },
      },
    ]);
  }
  return fields;
}

import { findCommandProblems, findScopeProblems } from './command-validation.ts';
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
        const commands = json.map((command, index) => assertCommand(command, [index]));
        const scopeProblems = findScopeProblems(commands);
        if (scopeProblems.length > 0) {
          throw invalidFormBody(scopeProblems);
        }
        const registered = context.commands.overwrite(scope, commands);
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
        const command = assertCommand(jsonObject(request.body), []);
        const others = context.commands.list(scope).filter((existing) => existing.name !== command.name);
        const scopeProblems = findScopeProblems([...others, command]);
        if (scopeProblems.length > 0) {
          throw invalidFormBody(scopeProblems);
        }
        const registered = context.commands.upsert(scope, command);
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

/** The command as sent, or Discord's 400/50035 listing every rule it breaks. */
function assertCommand(command: unknown, path: (string | number)[]): Record<string, unknown> {
  const fields = (typeof command === 'object' && command !== null ? command : {}) as Record<string, unknown>;
  const problems = findCommandProblems(fields, path);
  if (problems.length > 0) {
    throw invalidFormBody(problems);
  }
  return fields;
}

import { apiChannel, apiMember, apiUser } from './api-objects.ts';
import { errorCodes, unknownEntity } from './discord-api-error.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import { jsonObject } from './request-body.ts';
import { ok, type RestRoute } from './rest-route.ts';
import type { FakeGuild } from './world.ts';

/** Where a client connects: the gateway address, the bot, its application, guilds and members. */
export const accountRoutes: RestRoute[] = [
  {
    name: 'gateway-bot',
    method: 'GET',
    pattern: '/gateway/bot',
    auth: 'bot',
    bucket: 'other',
    handle(context) {
      return ok({
        url: gatewayUrl(context),
        shards: context.settings.recommendedShardCount,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
      });
    },
  },
  {
    name: 'gateway',
    method: 'GET',
    pattern: '/gateway',
    auth: 'token',
    bucket: 'other',
    handle(context) {
      return ok({ url: gatewayUrl(context) });
    },
  },
  {
    name: 'current-user',
    method: 'GET',
    pattern: '/users/@me',
    auth: 'bot',
    bucket: 'other',
    handle(context) {
      return ok(apiUser(context.world.bot));
    },
  },
  {
    name: 'user',
    method: 'GET',
    pattern: '/users/:userId',
    auth: 'bot',
    bucket: 'other',
    handle(context, { params }) {
      const user = context.world.users.get(params.userId ?? '');
      if (user === undefined) {
        throw unknownEntity('User', errorCodes.unknownUser);
      }
      return ok(apiUser(user));
    },
  },
  {
    name: 'create-dm',
    method: 'POST',
    pattern: '/users/@me/channels',
    auth: 'bot',
    bucket: 'other',
    handle(context, { body }) {
      const recipientId = String(jsonObject(body).recipient_id ?? '');
      if (!context.world.users.has(recipientId)) {
        throw unknownEntity('User', errorCodes.unknownUser);
      }
      return ok(apiChannel(context.world.directMessageChannel(recipientId).channel, context.world));
    },
  },
  {
    name: 'current-application',
    method: 'GET',
    pattern: '/applications/@me',
    auth: 'bot',
    bucket: 'other',
    handle(context) {
      return ok({
        id: context.applicationId,
        name: context.world.bot.username,
        icon: null,
        description: '',
        bot_public: true,
        bot_require_code_grant: false,
        verify_key: '0'.repeat(64),
        flags: 0,
        team: null,
        bot: apiUser(context.world.bot),
        owner: apiUser(context.world.bot),
      });
    },
  },
  {
    name: 'guild',
    method: 'GET',
    pattern: '/guilds/:guildId',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'guildId',
    handle(context, { params }) {
      const guild = requireGuild(context, params.guildId);
      return ok({ id: guild.id, name: guild.name, owner_id: guild.ownerId, features: [], roles: [] });
    },
  },
  {
    name: 'guild-channels',
    method: 'GET',
    pattern: '/guilds/:guildId/channels',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'guildId',
    handle(context, { params }) {
      const guild = requireGuild(context, params.guildId);
      const channels = [...context.world.channels.values()].filter(
        (channel) => channel.guildId === guild.id && channel.kind === 'text',
      );
      return ok(channels.map((channel) => apiChannel(channel, context.world)));
    },
  },
  {
    name: 'guild-member',
    method: 'GET',
    pattern: '/guilds/:guildId/members/:userId',
    auth: 'bot',
    bucket: 'other',
    majorParameter: 'guildId',
    handle(context, { params }) {
      const guild = requireGuild(context, params.guildId);
      const user = context.world.users.get(params.userId ?? '');
      if (user === undefined || !guild.memberIds.includes(user.id)) {
        throw unknownEntity('Member', errorCodes.unknownMember);
      }
      return ok(apiMember(guild, user));
    },
  },
];

/** The gateway's address on the fake's own port. */
export function gatewayUrl(context: FakeDiscordContext): string {
  return `${context.origin.replace(/^http/, 'ws')}/gateway`;
}

function requireGuild(context: FakeDiscordContext, guildId: string | undefined): FakeGuild {
  const guild = context.world.guilds.get(guildId ?? '');
  if (guild === undefined) {
    throw unknownEntity('Guild', errorCodes.unknownGuild);
  }
  return guild;
}

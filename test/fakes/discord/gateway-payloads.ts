import { apiGuildCreate, apiMember, apiUser } from './api-objects.ts';
import type { GatewayServerOptions } from './gateway-server.ts';
import type { World } from './world.ts';

/** The payloads the gateway sends on IDENTIFY and REQUEST_GUILD_MEMBERS, built from the world. */
export function gatewayPayloads(
  world: World,
  resumeUrl: () => string,
): Pick<GatewayServerOptions, 'readyPayload' | 'guildCreatePayloads' | 'guildMembers'> {
  return {
    readyPayload: (sessionId) => ({
      v: 10,
      user: { ...apiUser(world.bot), verified: true, mfa_enabled: false },
      // Every guild starts unavailable; discord.js waits for each one's GUILD_CREATE before it is ready.
      guilds: world.botGuilds().map((guild) => ({ id: guild.id, unavailable: true })),
      session_id: sessionId,
      resume_gateway_url: resumeUrl(),
      shard: [0, 1],
      application: { id: world.bot.id, flags: 0 },
      private_channels: [],
      relationships: [],
      presences: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
    }),
    guildCreatePayloads: () => world.botGuilds().map((guild) => apiGuildCreate(guild, world)),
    guildMembers: (guildId) => {
      const guild = world.guilds.get(guildId);
      return guild === undefined ? [] : guild.memberIds.map((id) => apiMember(guild, world.requireUser(id)));
    },
  };
}

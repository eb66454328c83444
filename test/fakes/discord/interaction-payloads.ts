import { randomBytes } from 'node:crypto';
import { apiAttachment, apiChannel, apiMember, apiUser } from './api-objects.ts';
import type { FakeFile } from './attachment-hosting.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import type { FakeInteraction, InteractionKind } from './interaction-store.ts';
import { hasPermission } from './permissions.ts';
import { preciseNowMs } from './precise-time.ts';
import type { FakeChannel, FakeGuild, FakeUser } from './world.ts';

/** A value of a slash command option as a test gives it. */
export type SlashOptionValue = string | number | boolean;

/** One option of an interaction's `data.options`, as Discord sends it. */
export interface InteractionOption {
  name: string;
  type: number;
  value?: SlashOptionValue;
  focused?: boolean;
  options?: InteractionOption[];
}

/** Discord's option type numbers. */
const optionTypes = {
  subcommand: 1,
  string: 3,
  integer: 4,
  boolean: 5,
  user: 6,
  channel: 7,
  number: 10,
  attachment: 11,
} as const;

// receiving-and-responding.mdx, "Interaction Type": a message command is an APPLICATION_COMMAND too.
export const interactionTypes: Record<InteractionKind, number> = {
  'slash-command': 2,
  'message-command': 2,
  component: 3,
  autocomplete: 4,
  'modal-submit': 5,
};

/** Who installed the app the interaction runs for: the server (guild install) or the person (user install). */
export type Installation = 'guild' | 'user';

/**
 * receiving-and-responding.mdx, "Interaction Context Types": 0 GUILD, 1 BOT_DM, 2 PRIVATE_CHANNEL;
 * and `authorizing_integration_owners`, keyed by installation type (0 guild, 1 user) with the id of
 * the guild or the user that installed it.
 */
export function installationFields(
  channel: FakeChannel,
  user: FakeUser,
  installation: Installation,
): { context: number; authorizing_integration_owners: Record<string, string> } {
  const context = channel.guildId === null ? 1 : 0;
  if (installation === 'user') return { context, authorizing_integration_owners: { '1': user.id } };
  return {
    context,
    authorizing_integration_owners: channel.guildId === null ? { '1': user.id } : { '0': channel.guildId },
  };
}

/**
 * Registers an interaction and dispatches INTERACTION_CREATE with every field discord.js reads
 * (it throws without `entitlements`, for one). Returns the stored interaction.
 */
export function dispatchInteraction(
  context: FakeDiscordContext,
  options: {
    kind: InteractionKind;
    channel: FakeChannel;
    user: FakeUser;
    data: Record<string, unknown>;
    commandName?: string;
    customId?: string;
    message?: { id: string; payload: unknown };
    installation?: Installation;
  },
): FakeInteraction {
  const { world } = context;
  const { channel, user } = options;
  const interaction: FakeInteraction = {
    id: context.ids.next(),
    // Real tokens are long opaque strings; this one is unguessable enough to catch mix-ups.
    token: `fake-interaction-${randomBytes(24).toString('base64url')}`,
    kind: options.kind,
    commandName: options.commandName ?? null,
    customId: options.customId ?? null,
    channelId: channel.id,
    guildId: channel.guildId,
    userId: user.id,
    createdAtMs: preciseNowMs(),
    sourceMessageId: options.message?.id ?? null,
    responses: [],
    originalMessageId: null,
    followUpMessageIds: [],
    installation: options.installation ?? 'guild',
  };
  context.interactions.add(interaction);

  const guild = channel.guildId === null ? undefined : world.guilds.get(channel.guildId);
  const memberPermissions = guild === undefined ? 0n : memberPermissionsOf(guild, user.id);
  const payload = {
    id: interaction.id,
    application_id: context.applicationId,
    type: interactionTypes[options.kind],
    token: interaction.token,
    version: 1,
    data: options.data,
    channel_id: channel.id,
    channel: apiChannel(channel, world),
    ...installationFields(channel, user, options.installation ?? 'guild'),
    ...(guild === undefined
      ? { user: apiUser(user) }
      : {
          guild_id: guild.id,
          guild: { id: guild.id, locale: 'en-US', features: [] },
          guild_locale: 'en-US',
          member: { ...apiMember(guild, user), permissions: memberPermissions.toString() },
        }),
    ...(options.message === undefined ? {} : { message: options.message.payload }),
    app_permissions: world.botPermissionsIn(channel).toString(),
    locale: 'en-US',
    entitlements: [],
    attachment_size_limit: context.settings.attachmentSizeLimitBytes,
  };
  context.gateway.dispatch('INTERACTION_CREATE', () => payload);
  return interaction;
}

/**
 * A member's guild permissions: @everyone's and those of each role they have (topics/permissions.mdx,
 * "Permission Hierarchy": base permissions are @everyone's OR-ed with the member's roles'; an
 * administrator has every permission).
 */
export function memberPermissionsOf(guild: FakeGuild, userId: string): bigint {
  let bits = guild.roles[0]?.permissions ?? 0n;
  for (const role of guild.roles) if (role.memberIds.includes(userId)) bits |= role.permissions;
  return hasPermission(bits, 'administrator') ? ~0n & ((1n << 53n) - 1n) : bits;
}

/**
 * Builds the `data` of a slash command: option types come from the registered command when there is
 * one (so an integer option stays an integer), else from the JavaScript type of each value.
 * Attachment options are hosted and listed under `resolved.attachments`; user options under
 * `resolved.users`.
 */
export function slashCommandData(
  context: FakeDiscordContext,
  options: {
    name: string;
    channel: FakeChannel;
    values: Record<string, SlashOptionValue>;
    subcommand?: string;
    attachments: Record<string, FakeFile>;
    focused?: string;
  },
): Record<string, unknown> {
  const registered = context.commands.find(options.name, options.channel.guildId);
  const definitions = optionDefinitions(registered?.options ?? [], options.subcommand);
  const resolved: Record<string, Record<string, unknown>> = {};
  const built: InteractionOption[] = Object.entries(options.values).map(([name, value]) => {
    const type = definitions.get(name) ?? inferType(value);
    if (type === optionTypes.user) {
      const user = context.world.users.get(String(value));
      if (user !== undefined) {
        resolved.users = { ...resolved.users, [user.id]: apiUser(user) };
      }
    }
    return { name, type, value, ...(name === options.focused ? { focused: true } : {}) };
  });
  for (const [name, file] of Object.entries(options.attachments)) {
    const hosted = context.attachments.host(options.channel.id, file);
    resolved.attachments = { ...resolved.attachments, [hosted.id]: apiAttachment(hosted) };
    built.push({ name, type: optionTypes.attachment, value: hosted.id });
  }
  const topLevel =
    options.subcommand === undefined
      ? built
      : [{ name: options.subcommand, type: optionTypes.subcommand, options: built }];
  return {
    id: registered?.id ?? context.ids.next(),
    name: options.name,
    type: 1,
    ...(registered?.guild_id === undefined ? {} : { guild_id: registered.guild_id }),
    options: topLevel,
    ...(Object.keys(resolved).length === 0 ? {} : { resolved }),
  };
}

function optionDefinitions(
  definitions: readonly Record<string, unknown>[],
  subcommand: string | undefined,
): Map<string, number> {
  const level =
    subcommand === undefined
      ? definitions
      : ((definitions.find((definition) => definition.name === subcommand)?.options ?? []) as Record<
          string,
          unknown
        >[]);
  return new Map(level.map((definition) => [String(definition.name), Number(definition.type)]));
}

function inferType(value: SlashOptionValue): number {
  if (typeof value === 'boolean') {
    return optionTypes.boolean;
  }
  if (typeof value === 'number') {
    return Number.isInteger(value) ? optionTypes.integer : optionTypes.number;
  }
  return optionTypes.string;
}

/** Whether a message's components (rows, nested containers) hold one with this `custom_id`. */
export function hasComponent(components: readonly unknown[], customId: string): boolean {
  return components.some((component) => {
    if (typeof component !== 'object' || component === null) {
      return false;
    }
    const fields = component as { custom_id?: unknown; components?: unknown; accessory?: unknown };
    return (
      fields.custom_id === customId ||
      (Array.isArray(fields.components) && hasComponent(fields.components, customId)) ||
      (fields.accessory !== undefined && hasComponent([fields.accessory], customId))
    );
  });
}

import type { APIEmbed } from 'discord.js';
import type { FakeFile } from './attachment-hosting.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import {
  dispatchInteraction,
  hasComponent,
  memberPermissionsOf,
  type SlashOptionValue,
  slashCommandData,
} from './interaction-payloads.ts';
import { createMessage, messageObject } from './message-actions.ts';
import type { FakeChannel, FakeUser } from './world.ts';

/** A person's message, as `sendUserMessage` takes it. */
export interface UserMessageOptions {
  channelId: string;
  content?: string;
  /** Who writes it: a user or a user id. Default: the DM's other person, or the fake's default person. */
  author?: FakeUser | string;
  /** User ids to mention; `<@id>` is put in front of the content for each one it lacks. */
  mentions?: readonly string[];
  /** Shorthand for mentioning the bot. */
  mentionsBot?: boolean;
  /** Files the person attached; they are served from the fake's `/attachments/` path. */
  attachments?: readonly FakeFile[];
  embeds?: APIEmbed[];
  /** The message this one replies to. */
  replyToMessageId?: string;
  /**
   * Whether the reply pings the author of the message it replies to, listing them in `mentions`
   * (`allowed_mentions.replied_user`, resources/message.mdx). Default `true`, as Discord's app sends
   * replies unless the person turns the ping off.
   */
  pingsRepliedAuthor?: boolean;
}

/** A slash command run, as `sendSlashCommand` takes it. */
export interface SlashCommandOptions {
  name: string;
  channelId: string;
  user?: FakeUser | string;
  /** Option values by name; types follow the registered command when there is one. */
  options?: Record<string, SlashOptionValue>;
  subcommand?: string;
  /** Attachment options by name. */
  attachments?: Record<string, FakeFile>;
}

/** An autocomplete request: the person is typing `focused.value` into option `focused.name`. */
export interface AutocompleteOptions {
  name: string;
  channelId: string;
  user?: FakeUser | string;
  focused: { name: string; value: string };
  /** The other options already filled in. */
  options?: Record<string, SlashOptionValue>;
  subcommand?: string;
}

/** A click on a button, or a choice in a select menu when `values` is given. */
export interface ComponentOptions {
  messageId: string;
  customId: string;
  user?: FakeUser | string;
  values?: readonly string[];
}

/** What a person can do: write messages and use the bot's commands and components. */
export interface UserActions {
  sendUserMessage(options: UserMessageOptions): string;
  sendSlashCommand(options: SlashCommandOptions): string;
  sendAutocomplete(options: AutocompleteOptions): string;
  clickButton(options: ComponentOptions): string;
}

/**
 * What Discord's client would not even let a person send: a command their permissions hide
 * (application-commands.mdx, "Application Command Permissions Object": default_member_permissions is
 * the set of permissions a member needs; administrators always pass), or a command that has
 * subcommands run without one ("Subcommands and Subcommand Groups": the base command is unusable).
 */
function assertMayRun(
  context: FakeDiscordContext,
  options: { name: string; channel: FakeChannel; user: FakeUser; subcommand: string | undefined },
): void {
  const registered = context.commands.find(options.name, options.channel.guildId);
  if (registered === undefined) return;
  const guild =
    options.channel.guildId === null ? undefined : context.world.guilds.get(options.channel.guildId);
  const needed = registered.default_member_permissions;
  if (guild !== undefined && typeof needed === 'string') {
    const bits = BigInt(needed);
    if ((memberPermissionsOf(guild, options.user.id) & bits) !== bits) {
      throw new Error(
        `fake discord: ${options.user.id} lacks the permissions /${options.name} needs, so Discord hides it`,
      );
    }
  }
  const hasSubcommands = (registered.options ?? []).some((option) => option.type === 1 || option.type === 2);
  if (hasSubcommands && options.subcommand === undefined) {
    throw new Error(`fake discord: /${options.name} has subcommands; its base command cannot be run`);
  }
}

/** Creates the actions; `defaultUser` acts whenever a test names nobody. */
export function createUserActions(context: FakeDiscordContext, defaultUser: FakeUser): UserActions {
  const { world } = context;

  function resolveUser(user: FakeUser | string | undefined, channel: FakeChannel): FakeUser {
    if (user !== undefined) {
      const resolved = world.requireUser(typeof user === 'string' ? user : user.id);
      if (channel.guildId !== null) {
        world.addMember(channel.guildId, resolved.id);
      }
      return resolved;
    }
    return channel.recipientId === null ? defaultUser : world.requireUser(channel.recipientId);
  }

  function assertSomeoneListens(): void {
    // A session waiting for a RESUME still counts: it gets the event when it comes back.
    if (context.gateway.sessionCount === 0) {
      throw new Error('fake discord: no client has identified on the gateway, so nobody would receive this');
    }
  }

  return {
    sendUserMessage(options) {
      assertSomeoneListens();
      const channel = world.requireChannel(options.channelId);
      const author = resolveUser(options.author, channel);
      if (channel.isPrivate && !channel.threadMemberIds.includes(author.id)) {
        // Only members write in a private thread; the person joins it first.
        channel.threadMemberIds.push(author.id);
      }
      if (
        options.replyToMessageId !== undefined &&
        context.messages.get(options.replyToMessageId) === undefined
      ) {
        throw new Error(`fake discord: no message ${options.replyToMessageId} to reply to`);
      }
      const mentionIds = [...(options.mentionsBot ? [world.bot.id] : []), ...(options.mentions ?? [])];
      const repliedAuthorId =
        options.replyToMessageId === undefined
          ? undefined
          : context.messages.get(options.replyToMessageId)?.author.id;
      let content = options.content ?? '';
      for (const id of [...mentionIds].reverse()) {
        if (!content.includes(`<@${id}>`) && !content.includes(`<@!${id}>`)) {
          content = `<@${id}> ${content}`;
        }
      }
      const message = createMessage(context, {
        channel,
        author,
        content,
        embeds: options.embeds ?? [],
        attachments: (options.attachments ?? []).map((file) => context.attachments.host(channel.id, file)),
        replyToMessageId: options.replyToMessageId ?? null,
        mentionDefaults: 'person',
        extraMentionIds: [
          ...mentionIds,
          ...(repliedAuthorId !== undefined && (options.pingsRepliedAuthor ?? true) ? [repliedAuthorId] : []),
        ],
      });
      return message.id;
    },
    sendSlashCommand(options) {
      assertSomeoneListens();
      const channel = world.requireChannel(options.channelId);
      const data = slashCommandData(context, {
        name: options.name,
        channel,
        values: options.options ?? {},
        attachments: options.attachments ?? {},
        ...(options.subcommand === undefined ? {} : { subcommand: options.subcommand }),
      });
      const user = resolveUser(options.user, channel);
      assertMayRun(context, { name: options.name, channel, user, subcommand: options.subcommand });
      return dispatchInteraction(context, {
        kind: 'slash-command',
        channel,
        user,
        data,
        commandName: options.name,
      }).id;
    },
    sendAutocomplete(options) {
      assertSomeoneListens();
      const channel = world.requireChannel(options.channelId);
      const data = slashCommandData(context, {
        name: options.name,
        channel,
        values: { ...options.options, [options.focused.name]: options.focused.value },
        attachments: {},
        focused: options.focused.name,
        ...(options.subcommand === undefined ? {} : { subcommand: options.subcommand }),
      });
      const user = resolveUser(options.user, channel);
      return dispatchInteraction(context, {
        kind: 'autocomplete',
        channel,
        user,
        data,
        commandName: options.name,
      }).id;
    },
    clickButton(options) {
      assertSomeoneListens();
      const message = context.messages.get(options.messageId);
      if (message === undefined) {
        throw new Error(`fake discord: no message ${options.messageId} to click on`);
      }
      if (!hasComponent(message.components, options.customId)) {
        throw new Error(
          `fake discord: message ${message.id} has no component with custom_id ${options.customId}`,
        );
      }
      const channel = world.requireChannel(message.channelId);
      const user = resolveUser(options.user, channel);
      const data =
        options.values === undefined
          ? { custom_id: options.customId, component_type: 2 }
          : { custom_id: options.customId, component_type: 3, values: options.values };
      const payload = {
        ...messageObject(context, message),
        ...(message.guildId === null ? {} : { guild_id: message.guildId }),
      };
      return dispatchInteraction(context, {
        kind: 'component',
        channel,
        user,
        data,
        customId: options.customId,
        message: { id: message.id, payload },
      }).id;
    },
  };
}

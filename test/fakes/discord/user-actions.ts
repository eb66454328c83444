import type { APIEmbed } from 'discord.js';
import type { FakeFile } from './attachment-hosting.ts';
import type { FakeDiscordContext } from './fake-context.ts';
import {
  dispatchInteraction,
  hasComponent,
  type Installation,
  installationFields,
  memberPermissionsOf,
  type SlashOptionValue,
  slashCommandData,
} from './interaction-payloads.ts';
import { createMessage, messageObject } from './message-actions.ts';
import { submittedComponents, textInputsOf } from './modal-rules.ts';
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
   * The bot is down on purpose (a restart in the test): the message is stored and nobody receives
   * it, and the next client's new session never replays it (events/gateway.mdx, "Resuming": only
   * a RESUME replays what a session missed). Otherwise sending with no client on the gateway is a
   * test's mistake, and throws.
   */
  isBotAway?: boolean;
  /**
   * Whether the reply pings the author of the message it replies to, listing them in `mentions`
   * (`allowed_mentions.replied_user`, resources/message.mdx). Default `true`, as Discord's app sends
   * replies unless the person turns the ping off.
   */
  pingsRepliedAuthor?: boolean;
}

/** A person forwarding a message, as `forwardMessage` takes it. */
export interface ForwardOptions {
  /** The message forwarded. */
  messageId: string;
  /** Where the forward is posted (a channel, thread or DM). */
  channelId: string;
  /** Who forwards it. Default: the DM's other person, or the fake's default person. */
  author?: FakeUser | string;
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
  /** Through the server's install of the app (default) or the person's own (user install). */
  installation?: Installation;
}

/** A message command run from a message's context menu ("Apps" → the command). */
export interface MessageCommandOptions {
  /** The command's name as registered, e.g. `Ask parley about this`. */
  name: string;
  messageId: string;
  user?: FakeUser | string;
  installation?: Installation;
}

/** A person filling in and submitting the modal the bot answered an interaction with. */
export interface ModalSubmitOptions {
  /** The interaction the bot answered with the modal (callback type 9). */
  interactionId: string;
  /** What the person typed, by the text input's custom_id; others keep their pre-filled value. */
  values: Record<string, string>;
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
  /** Forwards a message as Discord's app does: a message of its own with the original's snapshot. */
  forwardMessage(options: ForwardOptions): string;
  sendSlashCommand(options: SlashCommandOptions): string;
  sendAutocomplete(options: AutocompleteOptions): string;
  clickButton(options: ComponentOptions): string;
  sendMessageCommand(options: MessageCommandOptions): string;
  submitModal(options: ModalSubmitOptions): string;
}

/**
 * What Discord's client would not even let a person send: a command their permissions hide
 * (application-commands.mdx, "Application Command Permissions Object": default_member_permissions is
 * the set of permissions a member needs; administrators always pass), or a command that has
 * subcommands run without one ("Subcommands and Subcommand Groups": the base command is unusable).
 */
function assertMayRun(
  context: FakeDiscordContext,
  options: {
    name: string;
    channel: FakeChannel;
    user: FakeUser;
    subcommand: string | undefined;
    installation?: Installation;
    type?: number;
  },
): void {
  const registered = context.commands.find(options.name, options.channel.guildId, options.type);
  // application-commands.mdx, "Application Command Structure": integration_types apply "only for
  // globally-scoped commands", and guild commands "are available only within the guild specified":
  // a person's own install offers global commands only.
  if (options.installation === 'user' && (registered === undefined || registered.guild_id !== undefined)) {
    throw new Error(
      `fake discord: ${options.name} is not a global command, so a user install does not offer it`,
    );
  }
  if (registered === undefined) return;
  // application-commands.mdx, "Contexts": `integration_types` says which installs offer the command
  // and `contexts` where in the client it shows; elsewhere the client does not list it at all.
  const { context: interactionContext } = installationFields(
    options.channel,
    options.user,
    options.installation ?? 'guild',
  );
  const integrationTypes = (registered.integration_types as number[] | undefined) ?? [0];
  const installationType = options.installation === 'user' ? 1 : 0;
  if (!integrationTypes.includes(installationType)) {
    throw new Error(
      `fake discord: /${options.name} is not offered to a ${options.installation ?? 'guild'} install`,
    );
  }
  const contexts = registered.contexts as number[] | null | undefined;
  if (Array.isArray(contexts) && !contexts.includes(interactionContext)) {
    throw new Error(
      `fake discord: ${options.name} cannot be used in interaction context ${interactionContext}`,
    );
  }
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
    // So does a client identifying afresh after an interruption: what is sent meanwhile is lost to it.
    if (context.gateway.sessionCount === 0 && !context.gateway.isInterrupted) {
      throw new Error('fake discord: no client has identified on the gateway, so nobody would receive this');
    }
  }

  return {
    sendUserMessage(options) {
      if (options.isBotAway !== true) assertSomeoneListens();
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
    forwardMessage(options) {
      assertSomeoneListens();
      const original = context.messages.get(options.messageId);
      if (original === undefined) {
        throw new Error(`fake discord: no message ${options.messageId} to forward`);
      }
      // resources/message.mdx, "Message Reference Types": "FORWARD can only be used for basic
      // messages": types DEFAULT, REPLY, CHAT_INPUT_COMMAND and CONTEXT_MENU_COMMAND.
      if (![0, 19, 20, 23].includes(original.type)) {
        throw new Error(`fake discord: a message of type ${original.type} cannot be forwarded`);
      }
      const channel = world.requireChannel(options.channelId);
      const author = resolveUser(options.author, channel);
      // Same page, "Message Snapshot Object": nesting is limited to depth 1, so forwarding a forward
      // forwards its snapshot.
      const source = original.forward?.snapshot;
      const message = createMessage(context, {
        channel,
        author,
        content: '',
        mentionDefaults: 'person',
        forward: {
          messageId: original.forward?.messageId ?? original.id,
          channelId: original.forward?.channelId ?? original.channelId,
          guildId: original.forward?.guildId ?? original.guildId,
          snapshot: source
            ? { ...source }
            : {
                type: original.type,
                content: original.content,
                embeds: original.embeds,
                attachments: original.attachments,
                createdAtMs: original.createdAtMs,
                editedAtMs: original.editedAtMs,
                flags: original.flags,
                mentionIds: [...original.mentionIds],
                mentionRoleIds: [...original.mentionRoleIds],
              },
        },
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
      assertMayRun(context, {
        name: options.name,
        channel,
        user,
        subcommand: options.subcommand,
        ...(options.installation ? { installation: options.installation } : {}),
      });
      return dispatchInteraction(context, {
        kind: 'slash-command',
        channel,
        user,
        data,
        commandName: options.name,
        ...(options.installation ? { installation: options.installation } : {}),
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
    sendMessageCommand(options) {
      assertSomeoneListens();
      const message = context.messages.get(options.messageId);
      if (message === undefined) {
        throw new Error(`fake discord: no message ${options.messageId} to run a message command on`);
      }
      const channel = world.requireChannel(message.channelId);
      const user = resolveUser(options.user, channel);
      assertMayRun(context, {
        name: options.name,
        channel,
        user,
        subcommand: undefined,
        type: 3,
        ...(options.installation ? { installation: options.installation } : {}),
      });
      const registered = context.commands.find(options.name, channel.guildId, 3);
      // receiving-and-responding.mdx, "Application Command Data Structure": `target_id`, and the
      // message itself under `resolved.messages`, which is how the app reads it without history access.
      const data = {
        id: registered?.id ?? context.ids.next(),
        name: options.name,
        type: 3,
        target_id: message.id,
        resolved: { messages: { [message.id]: messageObject(context, message) } },
        ...(registered?.guild_id === undefined ? {} : { guild_id: registered.guild_id }),
      };
      return dispatchInteraction(context, {
        kind: 'message-command',
        channel,
        user,
        data,
        commandName: options.name,
        ...(options.installation ? { installation: options.installation } : {}),
      }).id;
    },
    submitModal(options) {
      assertSomeoneListens();
      const opened = context.interactions.get(options.interactionId);
      const modal = opened?.responses.find((response) => response.type === 9)?.data;
      if (opened === undefined || modal === undefined) {
        throw new Error(`fake discord: interaction ${options.interactionId} opened no modal`);
      }
      const inputs = textInputsOf(modal);
      for (const [customId, value] of Object.entries(options.values)) {
        const input = inputs.get(customId);
        if (input === undefined) throw new Error(`fake discord: the modal has no text input ${customId}`);
        // The client enforces the input's own lengths before it lets the person submit.
        const maxLength = Number(input.max_length ?? 4000);
        if (value.length > maxLength)
          throw new Error(`fake discord: ${customId} takes at most ${maxLength} characters`);
      }
      const channel = world.requireChannel(opened.channelId);
      const user = world.requireUser(opened.userId);
      return dispatchInteraction(context, {
        kind: 'modal-submit',
        channel,
        user,
        data: { custom_id: modal.custom_id, components: submittedComponents(modal, options.values) },
        customId: String(modal.custom_id),
        installation: opened.installation,
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

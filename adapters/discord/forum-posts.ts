import {
  ChannelFlags,
  ChannelType,
  type ForumChannel,
  type GuildForumTag,
  type MediaChannel,
  type Message,
  PermissionFlagsBits,
  type ThreadChannel,
} from 'discord.js';
import { firstWordsTitle } from '../../src/conversation/title-writer.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';
import { noPings } from './channel-surface.ts';

/**
 * resources/channel.mdx, "Modify Channel", JSON Params (Thread): a post's `applied_tags` is
 * "limited to 5".
 */
export const appliedTagsLimit = 5;

/** resources/message.mdx, "Create Message": content is up to 2,000 characters (code points). */
const contentCharacters = 2_000;

/**
 * In the channel where the question was asked: a reply that says where the answer is (and pings
 * the asker, who is not yet a member of the post).
 */
export async function pointToPost({
  message,
  post,
  adapter,
}: {
  message: Message;
  post: ThreadChannel;
  adapter: DiscordAdapterContext;
}): Promise<void> {
  try {
    await adapter.outbound.schedule({
      priority: 'first-post',
      target: { kind: 'create', channelId: message.channelId },
      run: () =>
        message.reply({
          content: `Answering in <#${post.id}>.`,
          allowedMentions: { parse: [], repliedUser: true },
        }),
    });
  } catch (error) {
    // The answer is in the post all the same; only the pointer is missing.
    adapter.logger.warn({ err: error, postId: post.id }, 'could not point to the forum post in the channel');
  }
}

/** Where a question came from, for the post's first lines. */
export interface ForumPostOrigin {
  readonly guildId: string | null;
  /** The text channel whose conversations go to the forum. */
  readonly channelId: string;
  readonly askerName: string;
  /** How the heading says where it was asked, with a link: "asked in https://…". */
  readonly askedWhere: string;
}

/** The origin of a question asked by a message in a channel. */
export function originOfMessage(message: Message): ForumPostOrigin {
  return {
    guildId: message.guildId,
    channelId: message.channelId,
    askerName: message.member?.displayName ?? message.author.displayName ?? message.author.username,
    askedWhere: `asked in ${message.url}`,
  };
}

export type ForumPostOutcome =
  /** The post parley opened, to answer in. */
  | { readonly post: ThreadChannel; readonly problem?: never }
  /** No post; `problem` (when there is one) tells the person why their answer is in the channel. */
  | { readonly post?: never; readonly problem: string | undefined };

/**
 * The forum or media channel that DISCORD_THREAD_FORUMS sends a text channel's conversations to, or
 * undefined when none is set for it.
 */
export function forumIdFor(channelId: string, adapter: DiscordAdapterContext): string | undefined {
  return adapter.discord.threadForumIds.get(channelId);
}

/**
 * Opens a post for a question asked in a text channel, in the forum or media channel the owner set
 * (topics/threads.mdx, "Forums": only threads live there, and a post starts with a message, so
 * the question is quoted in it with a link back). Tags are the forum's tags named in
 * DISCORD_FORUM_TAGS. A setting that points nowhere useful is the owner's to fix: logged, and the
 * caller opens an ordinary thread; a forum that refuses this post leaves the answer in the channel,
 * with a line saying why.
 */
export async function openForumPost({
  origin,
  forumId,
  question,
  adapter,
}: {
  origin: ForumPostOrigin;
  forumId: string;
  question: string;
  adapter: DiscordAdapterContext;
}): Promise<ForumPostOutcome> {
  const botUserId = adapter.client.user?.id ?? '';
  const forum = await adapter.client.channels.fetch(forumId).catch(() => null);
  if (
    forum === null ||
    (forum.type !== ChannelType.GuildForum && forum.type !== ChannelType.GuildMedia) ||
    forum.guildId !== origin.guildId
  ) {
    adapter.logger.warn(
      { channelId: origin.channelId, forumId },
      'DISCORD_THREAD_FORUMS names a channel that is not a forum or media channel of this server; opening a thread instead',
    );
    return { problem: undefined };
  }
  const permissions = forum.permissionsFor(botUserId);
  // resources/channel.mdx, "Start Thread in Forum or Media Channel": a post needs SEND_MESSAGES
  // ("CREATE_PUBLIC_THREADS is ignored"); answering in it needs SEND_MESSAGES_IN_THREADS.
  const missing = (
    [
      [PermissionFlagsBits.ViewChannel, 'View Channel'],
      [PermissionFlagsBits.SendMessages, 'Send Messages'],
      [PermissionFlagsBits.SendMessagesInThreads, 'Send Messages in Threads'],
    ] as const
  )
    .filter(([flag]) => permissions?.has(flag) !== true)
    .map(([, name]) => name);
  if (missing.length > 0) {
    adapter.logger.warn(
      { forumId, missing },
      'parley may not post in the forum DISCORD_THREAD_FORUMS names; answering in the channel',
    );
    return { problem: `I may not post in <#${forumId}> (I need ${missing.join(', ')}), so I answered here.` };
  }
  const appliedTags = tagsToApply({
    available: forum.availableTags,
    names: adapter.discord.forumTagNames,
    mayModerate: permissions?.has(PermissionFlagsBits.ManageThreads) === true,
  });
  // resources/channel.mdx, "Channel Flags": REQUIRE_TAG "requires that a tag ... be specified".
  if (appliedTags.length === 0 && forum.flags.has(ChannelFlags.RequireTag)) {
    adapter.logger.warn(
      {
        forumId,
        tagNames: adapter.discord.forumTagNames,
        available: forum.availableTags.map((tag) => tag.name),
      },
      'the forum requires a tag and DISCORD_FORUM_TAGS names none of its tags; answering in the channel',
    );
    return {
      problem: `<#${forumId}> needs a tag on every post and none of its tags is one I am set to use (DISCORD_FORUM_TAGS), so I answered here.`,
    };
  }
  try {
    const post = await createPost({ forum, origin, question, appliedTags, adapter });
    return { post };
  } catch (error) {
    adapter.logger.warn({ err: error, forumId, channelId: origin.channelId }, 'could not open a forum post');
    return { problem: `I could not open a post in <#${forumId}>, so I answered here.` };
  }
}

/** The ids of the forum's tags named in `names` (not case-sensitive), in the forum's order, at most 5. */
export function tagsToApply({
  available,
  names,
  mayModerate,
}: {
  available: readonly Pick<GuildForumTag, 'id' | 'name' | 'moderated'>[];
  names: readonly string[];
  /** resources/channel.mdx, "Forum Tag Object": a moderated tag needs MANAGE_THREADS. */
  mayModerate: boolean;
}): string[] {
  const wanted = new Set(names.map((name) => name.toLocaleLowerCase()));
  return available
    .filter((tag) => wanted.has(tag.name.toLocaleLowerCase()) && (mayModerate || !tag.moderated))
    .map((tag) => tag.id)
    .slice(0, appliedTagsLimit);
}

async function createPost({
  forum,
  origin,
  question,
  appliedTags,
  adapter,
}: {
  forum: ForumChannel | MediaChannel;
  origin: ForumPostOrigin;
  question: string;
  appliedTags: string[];
  adapter: DiscordAdapterContext;
}): Promise<ThreadChannel> {
  const content = starterContent({ heading: `**${origin.askerName}** ${origin.askedWhere}:`, question });
  return await adapter.outbound.schedule({
    // A post is the first post of an answer: it goes as one, in the forum's create bucket.
    priority: 'first-post',
    target: { kind: 'create', channelId: forum.id },
    run: () =>
      forum.threads.create({
        name: firstWordsTitle(question),
        autoArchiveDuration: adapter.discord.threadArchiveMinutes,
        appliedTags,
        // A person's words quoted by the bot ping nobody.
        message: { content, allowedMentions: noPings },
      }),
  });
}

/** The heading, then the question quoted line by line, cut to fit one message (by code points). */
export function starterContent({ heading, question }: { heading: string; question: string }): string {
  if (question.trim() === '') return heading;
  const whole = `${heading}\n${question.replace(/^/gm, '> ')}`;
  const characters = Array.from(whole);
  return characters.length <= contentCharacters
    ? whole
    : `${characters.slice(0, contentCharacters - 1).join('')}…`;
}

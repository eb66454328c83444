import { PermissionFlagsBits, type TextBasedChannel } from 'discord.js';
import type { CommandResponder } from '../../commands/define-command.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';

/**
 * `renameConversation` for a command run in a thread: parley may rename a thread it started, or
 * any thread with Manage Threads (topics/threads.mdx, "Editing & Deleting Threads"), within
 * Discord's two renames per ten minutes. Outside threads the capability is absent.
 */
export function threadRenameCapability({
  channel,
  adapter,
}: {
  channel: TextBasedChannel | null;
  adapter: DiscordAdapterContext;
}): Pick<CommandResponder, 'renameConversation'> {
  if (!channel?.isThread()) return {};
  return {
    async renameConversation(title) {
      const botUserId = adapter.client.user?.id ?? '';
      const mayRename =
        channel.ownerId === botUserId ||
        channel.permissionsFor(botUserId)?.has(PermissionFlagsBits.ManageThreads) === true;
      if (!mayRename) {
        return {
          status: 'unavailable',
          reason: 'I can only rename threads I started, unless I have the Manage Threads permission here.',
        };
      }
      try {
        const outcome = await adapter.threadRenames.rename(channel, title);
        return outcome.status === 'limited' ? outcome : { status: outcome.status, title: outcome.name };
      } catch (error) {
        adapter.logger.warn({ err: error, threadId: channel.id }, 'could not rename the thread');
        return { status: 'unavailable', reason: 'Discord did not let me rename this thread.' };
      }
    },
  };
}

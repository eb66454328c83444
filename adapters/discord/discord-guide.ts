import { messageActions } from '../../commands/message-actions.ts';
import type { DiscordAdapterContext } from './adapter-context.ts';

const replyModeLines = {
  thread:
    'In server channels a mention opens a thread from your message and I answer there; keep talking in the thread without mentioning me.',
  inline: 'In server channels I answer a mention right below it.',
  all: 'In server channels I answer every message.',
} as const;

/** How parley works on Discord, for /help: where it answers, the message menu, titles, installs. */
export function discordGuide(adapter: Pick<DiscordAdapterContext, 'discord'>): string[] {
  return [
    '**On Discord**',
    'Mention me (or DM me) to chat; each channel, thread and DM is its own conversation.',
    `${replyModeLines[adapter.discord.replyMode]} Admins change this per channel with \`/config\` (REPLY_MODE: thread, inline or all).`,
    'A thread I open is named after its first exchange; `/title` renames it (Discord allows two renames per ten minutes).',
    `On any message, **Apps** in its menu: ${messageActions.map((action) => `**${action.name}** (${action.description.charAt(0).toLowerCase()}${action.description.slice(1)})`).join('; ')}.`,
    'Install parley for yourself to use `/chat`, `/imagine`, `/summarize` and the message actions in DMs and servers without me; there I answer only through the command and cannot read the channel.',
    '`/system` alone opens a form for a multi-line system prompt.',
  ];
}

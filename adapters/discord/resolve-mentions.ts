import type { Message } from 'discord.js';

/** Message text with `<@id>`, `<@&id>` and `<#id>` turned into names, and the bot's own mention removed. */
export function resolveMentions(message: Pick<Message, 'content' | 'mentions'>, botUserId: string): string {
  return message.content
    .replace(new RegExp(`<@!?${botUserId}>`, 'g'), '')
    .replace(/<@!?(\d+)>/g, (whole, id: string) => {
      const member = message.mentions.members?.get(id);
      const user = message.mentions.users.get(id);
      return member ? `@${member.displayName}` : user ? `@${user.displayName ?? user.username}` : whole;
    })
    .replace(/<@&(\d+)>/g, (whole, id: string) => {
      const role = message.mentions.roles.get(id);
      return role ? `@${role.name}` : whole;
    })
    .replace(/<#(\d+)>/g, (whole, id: string) => {
      const channel = message.mentions.channels.get(id);
      return channel && 'name' in channel && channel.name ? `#${channel.name}` : whole;
    })
    .trim();
}

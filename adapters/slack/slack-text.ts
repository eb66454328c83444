const userMentionPattern = /<@([UW][A-Z0-9]+)(?:\|([^>]*))?>/g;

/**
 * Slack message text as a person reads it, for the model: `<@U…>` mentions become `@Name`, the
 * bot's own mention is removed, channel and group mentions become `#name` / `@here`, links become
 * their label (with the address when it differs), and Slack's `&amp;`, `&lt;`, `&gt;` are undone.
 */
export async function resolveSlackText({
  text,
  botUserId,
  nameOfUser,
}: {
  text: string;
  /** The bot's own user id; its mention is dropped. */
  botUserId: string | undefined;
  /** The display name of a user, e.g. from a cached `users.info`. */
  nameOfUser: (userId: string) => Promise<string>;
}): Promise<string> {
  const userIds = new Set(
    [...text.matchAll(userMentionPattern)].map((match) => match[1] ?? '').filter((id) => id !== botUserId),
  );
  const names = new Map<string, string>();
  await Promise.all(
    [...userIds].map(async (userId) => {
      names.set(userId, await nameOfUser(userId));
    }),
  );
  return text
    .replace(userMentionPattern, (_whole, userId: string, label: string | undefined) => {
      if (userId === botUserId) return '';
      return `@${names.get(userId) ?? label ?? userId}`;
    })
    .replace(
      /<#[CGD][A-Z0-9]+(?:\|([^>]*))?>/g,
      (_whole, name: string | undefined) => `#${name || 'channel'}`,
    )
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, '@$1')
    .replace(/<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>/g, (_whole, name: string | undefined) =>
      name ? (name.startsWith('@') ? name : `@${name}`) : '@group',
    )
    .replace(/<!date\^[^|>]*\|([^>]*)>/g, '$1')
    .replace(
      /<mailto:([^|>]+)(?:\|([^>]*))?>/g,
      (_whole, address: string, label: string | undefined) => label || address,
    )
    .replace(/<((?:https?|ftp):[^|>]+)(?:\|([^>]*))?>/g, (_whole, url: string, label: string | undefined) =>
      label === undefined || label === '' || label === url ? url : `${label} (${url})`,
    )
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

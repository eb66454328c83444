/**
 * A notification Slack would send because of what an app posted: a special mention (`<!here>`,
 * `<!channel>`, `<!everyone>`, `<!subteam^ID>`) or a user mention (`<@U…>`).
 */
export interface SlackMention {
  kind: 'here' | 'channel' | 'everyone' | 'subteam' | 'user';
  /** The user group or user notified; undefined for here/channel/everyone. */
  target: string | undefined;
  /** The method (or `response_url`) that carried it. */
  source: string;
  channel: string | undefined;
}

// Slack's mention syntax, from "Formatting text for app surfaces" (docs.slack.dev/messaging/
// formatting-message-text, sections "Mentioning users" and "Mentioning groups"): `<@U…>`, `<!here>`,
// `<!channel>`, `<!everyone>`, `<!subteam^ID>`, each with an optional `|label`. The page documents
// them for `text` and mrkdwn text objects; plain_text objects are shown as typed. Whether a
// `markdown` block or a stream's `markdown_text` parses them is not documented either way, so the
// fake assumes they do: a notification there would reach real people.
const mentionPattern =
  /<!(here|channel|everyone)(?:\|[^>\n]*)?>|<!subteam\^([A-Z0-9]+)(?:\|[^>\n]*)?>|<@([UW][A-Z0-9]+)(?:\|[^>\n]*)?>/gi;

/** The mentions Slack would turn into notifications in one piece of text. */
export function mentionsInText(text: string): Array<Pick<SlackMention, 'kind' | 'target'>> {
  const found: Array<Pick<SlackMention, 'kind' | 'target'>> = [];
  for (const match of text.matchAll(mentionPattern)) {
    if (match[1] !== undefined) {
      found.push({ kind: match[1].toLowerCase() as 'here' | 'channel' | 'everyone', target: undefined });
    } else if (match[2] !== undefined) {
      found.push({ kind: 'subteam', target: match[2] });
    } else if (match[3] !== undefined) {
      found.push({ kind: 'user', target: match[3] });
    }
  }
  return found;
}

/** The text-bearing arguments of a message call that Slack parses for mentions. */
const parsedFields = ['text', 'markdown_text', 'initial_comment'] as const;

/**
 * Every mention in a call's arguments: the top-level text fields, mrkdwn and markdown text in blocks
 * (plain_text is never parsed), rich_text `user`/`usergroup`/`broadcast` elements, and markdown chunks.
 */
export function mentionsInArguments(
  args: Record<string, unknown>,
): Array<Pick<SlackMention, 'kind' | 'target'>> {
  const found: Array<Pick<SlackMention, 'kind' | 'target'>> = [];
  for (const field of parsedFields) {
    const value = args[field];
    if (typeof value === 'string') found.push(...mentionsInText(value));
  }
  for (const field of ['blocks', 'chunks', 'attachments'] as const) {
    collectFromValue(args[field], found);
  }
  return found;
}

function collectFromValue(value: unknown, found: Array<Pick<SlackMention, 'kind' | 'target'>>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectFromValue(item, found);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  const type = record.type;
  if (type === 'plain_text') return;
  if (
    (type === 'mrkdwn' || type === 'markdown' || type === 'markdown_text') &&
    typeof record.text === 'string'
  ) {
    found.push(...mentionsInText(record.text));
    return;
  }
  if (type === 'broadcast' && typeof record.range === 'string') {
    found.push({ kind: record.range as 'here' | 'channel' | 'everyone', target: undefined });
  } else if (type === 'user' && typeof record.user_id === 'string') {
    found.push({ kind: 'user', target: record.user_id });
  } else if (type === 'usergroup' && typeof record.usergroup_id === 'string') {
    found.push({ kind: 'subteam', target: record.usergroup_id });
  }
  for (const [key, child] of Object.entries(record)) {
    if (key !== 'type') collectFromValue(child, found);
  }
}

/**
 * Slack's mention syntax (docs.slack.dev/messaging/formatting-message-text, "Mentioning users" and
 * "Mentioning groups"): `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^ID>` and `<@U…>`/`<@W…>`,
 * each with an optional `|label`. Slack turns each into a notification, so text parley did not write
 * itself (the model's answer, a file name, a prompt) must never carry one that Slack would parse.
 */
const mentionOpening =
  /<(?=(?:!(?:here|channel|everyone)(?:\|[^>\n]*)?|!subteam\^[^>\n]*|@[UW][A-Z0-9]+(?:\|[^>\n]*)?)>)/gi;

/**
 * A word joiner (U+2060): invisible, so the text reads the same, but `<⁠!channel>` is no longer the
 * syntax Slack parses. mrkdwn escapes `<` as `&lt;` instead (see markdown-to-mrkdwn.ts); Markdown
 * sent as a `markdown` block or a stream's `markdown_text` is shown as written, so it gets this.
 */
const wordJoiner = '\u2060';

/** Markdown with every Slack mention made inert and otherwise unchanged. */
export function neutraliseMentions(markdown: string): string {
  return markdown.replace(mentionOpening, `<${wordJoiner}`);
}

/**
 * A `<` that is not closed on its line yet, at the end of text still being written: it may become a
 * mention once the `>` arrives, so a stream (which cannot take text back) holds it until then.
 */
const unclosedTail = /<[^<>\n]*$/;

/** `text` without a trailing unclosed `<…`, see {@link unclosedTail}. */
export function withoutUnclosedTail(text: string): string {
  return text.replace(unclosedTail, '');
}

/** A command to run (`/summarize --messages 200`), or undefined for a prompt. */
export function commandOfText(text: string): { name: string; rest: string } | undefined {
  const match = /^\/([a-z][\w-]*)\s*([\s\S]*)$/i.exec(text.trim());
  return match?.[1] === undefined ? undefined : { name: match[1].toLowerCase(), rest: match[2] ?? '' };
}

/**
 * The flags as the person typed them, by option name (`{ count: '--n' }`), kept on the parsed record
 * under this symbol so that a problem names what they wrote. A symbol, so that code that walks the
 * record's entries (or an adapter that adds to it) never sees it as an option; a copy of the record
 * loses it, and problems then name options by their names.
 */
export const typedFlags: unique symbol = Symbol('typedFlags');

/** Raw option values by name, as `parseCommandText` reads them; see the keys it adds. */
export type ParsedCommandText = Record<string, string> & { [typedFlags]?: Record<string, string> };

/** Key under which text is kept when the command has no free-text option. */
export const strayTextKey = '(text)';

/** How a flag is written in help and docs: `aspect_ratio` is `--aspect-ratio`. */
export function flagOf(optionName: string): string {
  return `--${optionName.replaceAll('_', '-')}`;
}

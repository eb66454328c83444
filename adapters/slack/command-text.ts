import type { CommandOptions, RawOptionValue } from '../../commands/command-options.ts';
import { parseCommandText } from '../../commands/parse-command-text.ts';
import type { DocumentAttachment, ImageAttachment } from '../../src/conversation/turn.ts';

/** The words that may follow an image flag on Slack; any other word is the command's text. */
const imageFlagWords = /^(latest|last|recent)$/i;

/**
 * Reads a slash command's text into raw option values. An image option is a switch on Slack
 * (`/imagine a cat --ref`): there is no file to name, so it means the most recent image here, given
 * by `recentImage`. Without this the shared parser would take the next word as the option's value
 * (`--ref a cat` would lose "a").
 */
export function parseSlackCommandText({
  options,
  text,
  recentImage,
  recentFile,
}: {
  options: CommandOptions;
  text: string;
  recentImage: () => ImageAttachment;
  /** The most recent file that is not an image, for `--file` (documents). */
  recentFile?: () => DocumentAttachment;
}): Record<string, RawOptionValue> {
  const imageFlags = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.kind !== 'image' && option.kind !== 'file') continue;
    for (const flag of [name, name.replaceAll('_', '-'), ...(option.aliases ?? [])]) {
      imageFlags.set(flag.toLowerCase(), name);
    }
  }
  const rewritten = text.replace(
    /(^|\s)(?:--|—)([a-zA-Z][\w-]*)(=\S*|\s+(?!--|—)\S+)?/g,
    (whole, space: string, flag: string, value: string | undefined) => {
      if (!imageFlags.has(flag.toLowerCase())) return whole;
      const word = value?.replace(/^[=\s]+/, '') ?? '';
      const keepsWord = value !== undefined && !value.startsWith('=') && !imageFlagWords.test(word);
      return `${space}--${flag}=latest${keepsWord ? value : ''}`;
    },
  );
  const raw: Record<string, RawOptionValue> = parseCommandText(options, rewritten);
  for (const name of new Set(imageFlags.values())) {
    if (raw[name] === undefined) continue;
    raw[name] = options[name]?.kind === 'file' && recentFile ? recentFile() : recentImage();
  }
  return raw;
}

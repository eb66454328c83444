/** A small seeded generator (mulberry32), so a failing property test can be replayed by its seed. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface RandomMarkdownOptions {
  readonly random: () => number;
  /** Roughly how many characters to produce. */
  readonly targetLength: number;
  /** Words up to this long appear now and then, to force hard splits; 0 keeps words short. */
  readonly longWordLength?: number;
  /** Whether the text may end inside an unclosed code block or in a fence line. */
  readonly mayEndInCode?: boolean;
}

const languages = ['ts', 'python', '', 'bash', 'typescript', 'json'];
const letters = 'abcdefghijklmnopqrstuvwxyzéß';
const emoji = ['😀', '🚀', '👍🏽'];

/**
 * Markdown like a model writes it: paragraphs, lists and fenced code blocks. No line ends in a space
 * and fence lines never appear inside a block, which keeps the tests' own checks simple.
 */
export function randomMarkdown({
  random,
  targetLength,
  longWordLength = 0,
  mayEndInCode = false,
}: RandomMarkdownOptions): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const word = (): string => {
    if (longWordLength > 0 && random() < 0.02) return 'x'.repeat(1 + Math.floor(random() * longWordLength));
    if (random() < 0.03) return pick(emoji);
    const length = 1 + Math.floor(random() * 10);
    return Array.from({ length }, () => pick([...letters])).join('');
  };
  const line = (maxWords: number): string =>
    Array.from({ length: 1 + Math.floor(random() * maxWords) }, word).join(' ');
  const blocks: string[] = [];
  let length = 0;
  while (length < targetLength) {
    const kind = random();
    let block: string;
    if (kind < 0.45) block = line(40);
    else if (kind < 0.6)
      block = Array.from({ length: 2 + Math.floor(random() * 4) }, () => `- ${line(8)}`).join('\n');
    else {
      const marker = random() < 0.85 ? '```' : '~~~~';
      const codeLines = Array.from({ length: 1 + Math.floor(random() * 25) }, () =>
        random() < 0.15 ? '' : `${' '.repeat(Math.floor(random() * 3) * 2)}${line(12)}`,
      );
      block = `${marker}${pick(languages)}\n${codeLines.join('\n')}\n${marker}`;
    }
    blocks.push(block);
    length += block.length + 2;
  }
  let text = blocks.join(random() < 0.8 ? '\n\n' : '\n');
  if (mayEndInCode && random() < 0.3) text += `\n\n\`\`\`${pick(languages)}\n${line(10)}\n${line(10)}`;
  else if (!mayEndInCode || random() < 0.5) text += `\n\n${line(6)}`;
  if (random() < 0.3) text += '\n';
  return text;
}

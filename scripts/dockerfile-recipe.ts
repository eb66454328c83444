/**
 * Reads a Dockerfile into its stages and instructions, enough to check its shape and to replay its
 * install and start steps without a Docker engine (scripts/check-image-recipe.ts). Not a general
 * Dockerfile parser: it knows the instructions parley's Dockerfile uses, and says so for others.
 */

/** One instruction, with its line continuations joined. */
export interface Instruction {
  readonly keyword: string;
  /** Everything after the keyword. */
  readonly text: string;
  readonly line: number;
}

export interface Stage {
  readonly image: string;
  readonly name: string | undefined;
  readonly instructions: readonly Instruction[];
}

const knownKeywords = new Set([
  'FROM',
  'WORKDIR',
  'COPY',
  'RUN',
  'ENV',
  'USER',
  'VOLUME',
  'EXPOSE',
  'HEALTHCHECK',
  'CMD',
  'ARG',
  'LABEL',
]);

export function parseDockerfile(content: string): Stage[] {
  const stages: Array<{ image: string; name: string | undefined; instructions: Instruction[] }> = [];
  for (const instruction of instructionsOf(content)) {
    if (!knownKeywords.has(instruction.keyword)) {
      throw new Error(
        `Dockerfile line ${instruction.line}: ${instruction.keyword} is not replayed by this check`,
      );
    }
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.text.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`Dockerfile line ${instruction.line}: ${instruction.keyword} before FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

function instructionsOf(content: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  for (const [index, rawLine] of content.split('\n').entries()) {
    const line = rawLine.trim();
    if (line.startsWith('#') || (line === '' && pending === undefined)) continue;
    const continues = line.endsWith('\\');
    const part = continues ? line.slice(0, -1).trim() : line;
    pending = pending
      ? { text: `${pending.text} ${part}`, line: pending.line }
      : { text: part, line: index + 1 };
    if (continues) continue;
    const [keyword = '', ...rest] = pending.text.split(/\s+/);
    instructions.push({ keyword: keyword.toUpperCase(), text: rest.join(' '), line: pending.line });
    pending = undefined;
  }
  return instructions;
}

/** `KEY=value KEY2="value 2"` → entries. */
export function parseEnvInstruction(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) {
    values[match[1] ?? ''] = (match[2] ?? '').replace(/^"(.*)"$/, '$1');
  }
  return values;
}

/** `["node", "bin/parley.ts"]` (exec form) → its words; the shell form is refused. */
export function parseExecForm(text: string): string[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((word) => typeof word === 'string')) {
    throw new Error(`expected the exec form ["program", "argument"], got ${text}`);
  }
  return parsed;
}

/** `COPY [--from=stage] [--chown=…] source… destination` */
export function parseCopyInstruction(text: string): {
  from: string | undefined;
  sources: string[];
  destination: string;
} {
  const words = text.split(/\s+/);
  const flags = words.filter((word) => word.startsWith('--'));
  const paths = words.filter((word) => !word.startsWith('--'));
  const destination = paths.pop();
  if (destination === undefined || paths.length === 0)
    throw new Error(`COPY needs a source and a destination: ${text}`);
  const from = flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: paths, destination };
}

/** `HEALTHCHECK [--option=value…] CMD [...]` → the command's words. */
export function parseHealthcheck(text: string): string[] {
  const commandStart = text.indexOf('CMD ');
  if (commandStart === -1) throw new Error(`HEALTHCHECK has no CMD: ${text}`);
  return parseExecForm(text.slice(commandStart + 'CMD '.length));
}

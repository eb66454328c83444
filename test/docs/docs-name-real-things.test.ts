import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/all-commands.ts';
import { flagOf } from '../../commands/command-flags.ts';
import { commandsTableMarkers, renderCommandsTable } from '../../scripts/commands-reference.ts';
import { allEnvironmentSchemas } from '../../scripts/config-reference.ts';
import { adminSettings } from '../../src/administration/admin-settings.ts';
import { projectRoot } from '../../src/config.ts';

/**
 * What the README and docs/ tell a person to type must exist: every variable, npm script, command and
 * flag they name. A renamed flag or a removed variable fails here, not in a newcomer's first hour.
 */
const pages = ['README.md', ...readdirSync(join(projectRoot, 'docs')).map((name) => `docs/${name}`)].filter(
  (path) => path.endsWith('.md'),
);
const read = (path: string) => readFileSync(join(projectRoot, path), 'utf8');
const packageScripts: Record<string, string> = JSON.parse(read('package.json')).scripts;

const variables = new Set(allEnvironmentSchemas.flatMap((schema) => Object.keys(schema.shape)));
/** Names in capitals that are not variables but are meant: /config settings, metrics-free words. */
const otherCapitalNames = new Set([
  ...adminSettings.map((setting) => setting.name),
  'ERR_UNKNOWN_FILE_EXTENSION',
  'INIT_CWD',
  // Node's own: scripts/start.sh and the image set it (its compile cache), parley does not read it.
  'NODE_COMPILE_CACHE',
  // Read by the tests, not by parley: they turn on the Redis- and Postgres-backed tests.
  'REDIS_URL',
  'DATABASE_URL',
  // Discord's message flag, named where the fakes' rules are listed.
  'IS_COMPONENTS_V2',
  // Discord's field error codes (reference.mdx, "Error Messages"), named with the OpenAPI check.
  'BASE_TYPE_REQUIRED',
  'BASE_TYPE_CHOICES',
  'BASE_TYPE_MAX_LENGTH',
]);
/** Words after a slash that are not parley's commands: HTTP paths, Slack's own commands. */
const notCommands = new Set([
  'healthz',
  'readyz',
  'metrics',
  'invite',
  'slack',
  'app',
  'api',
  'proc',
  'files',
]);
/** The terminal's own commands (adapters/console/parse-console-line.ts). */
const terminalCommands = new Set(['image', 'file', 'press', 'exit', 'quit']);

/** Text in backticks and in fenced code blocks: where a page shows something to type. */
function codeOf(page: string): string[] {
  const text = read(page);
  const fenced = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');
  const withoutFences = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  const inline = [...withoutFences.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? '');
  return [...fenced.flatMap((block) => block.split('\n')), ...inline];
}

function flagsOfCommand(name: string): Set<string> {
  const command = allCommands.find((candidate) => candidate.name === name);
  const flags = new Set<string>();
  for (const [optionName, option] of Object.entries(command?.options ?? {})) {
    flags.add(flagOf(optionName));
    flags.add(`--${optionName}`);
    for (const alias of option.aliases ?? []) flags.add(`--${alias}`);
  }
  return flags;
}

/** The code of the folder an npm script runs from (`node bench/run.ts` → bench/*.ts), where its flags are read. */
function scriptSource(script: string): string {
  const file = /node (\S+\.ts)/.exec(packageScripts[script] ?? '')?.[1];
  if (!file) return '';
  const folder = dirname(file);
  return readdirSync(join(projectRoot, folder))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => read(join(folder, name)))
    .join('\n');
}

describe('README and docs name only what exists', () => {
  it('every variable they name is one parley reads', () => {
    const unknown: string[] = [];
    for (const page of pages) {
      for (const code of codeOf(page)) {
        for (const match of code.matchAll(/(?<![\w./{<-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(_\*)?(?![\w-])/g)) {
          const name = match[1] ?? '';
          const isKnown = match[2]
            ? [...variables].some((variable) => variable.startsWith(`${name}_`))
            : variables.has(name) || otherCapitalNames.has(name);
          if (!isKnown) unknown.push(`${page}: ${name}${match[2] ?? ''}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });

  it('every npm script they name exists, with the flags they give it', () => {
    const wrong: string[] = [];
    for (const page of pages) {
      for (const code of codeOf(page)) {
        for (const match of code.matchAll(/npm run ([\w:-]+)(?: -- ((?:--[\w-]+(?: [^-\s`]\S*)?\s*)+))?/g)) {
          const script = match[1] ?? '';
          if (!(script in packageScripts)) {
            wrong.push(`${page}: npm run ${script}`);
            continue;
          }
          for (const flag of (match[2] ?? '').match(/--[\w-]+/g) ?? []) {
            if (!new RegExp(`['"]?${flag.slice(2)}['"]?:|'${flag}['=]`).test(scriptSource(script))) {
              wrong.push(`${page}: npm run ${script} -- ${flag}`);
            }
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('every command they name exists, with the flags they give it', () => {
    const wrong: string[] = [];
    for (const page of pages) {
      for (const code of codeOf(page)) {
        for (const match of code.matchAll(/(?<![\w./:<>-])\/([a-z][a-z-]*)(?![\w/.…])([^`]*)/g)) {
          const name = (match[1] ?? '').replace(/^parley-/, '');
          if (notCommands.has(name) || terminalCommands.has(name)) continue;
          if (!allCommands.some((command) => command.name === name)) {
            wrong.push(`${page}: /${name}`);
            continue;
          }
          const flags = flagsOfCommand(name);
          const rest = (match[2] ?? '').split(/\s\/[a-z]/)[0] ?? '';
          for (const flag of rest.match(/(?<=^|[\s[])--[a-z][\w-]*/g) ?? []) {
            if (!flags.has(flag)) wrong.push(`${page}: /${name} ${flag}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("the README's table of commands is the one the command definitions make", () => {
    const readme = read('README.md');
    const table = readme.slice(
      readme.indexOf(commandsTableMarkers.start) + commandsTableMarkers.start.length,
      readme.indexOf(commandsTableMarkers.end),
    );
    expect(table.trim(), 'out of date: run `npm run config-docs`').toBe(renderCommandsTable());
  });

  it('the README fits on a few screens', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(150);
  });
});

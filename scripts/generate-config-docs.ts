// Writes docs/configuration.md and .env.example from the configuration schema, and the README's table
// of commands from commands/: `npm run config-docs`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/config.ts';
import { withCommandsTable } from './commands-reference.ts';
import { renderConfigurationReference, renderEnvExample } from './config-reference.ts';

const outputs = [
  { path: join(projectRoot, 'docs/configuration.md'), text: renderConfigurationReference() },
  { path: join(projectRoot, '.env.example'), text: renderEnvExample() },
  {
    path: join(projectRoot, 'README.md'),
    text: withCommandsTable(readFileSync(join(projectRoot, 'README.md'), 'utf8')),
  },
];
for (const { path, text } of outputs) {
  writeFileSync(path, text);
  process.stdout.write(`wrote ${path}\n`);
}

// Writes docs/configuration.md and .env.example from the configuration schema: `npm run config-docs`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/config.ts';
import { renderConfigurationReference, renderEnvExample } from './config-reference.ts';

const outputs = [
  { path: join(projectRoot, 'docs/configuration.md'), text: renderConfigurationReference() },
  { path: join(projectRoot, '.env.example'), text: renderEnvExample() },
];
for (const { path, text } of outputs) {
  writeFileSync(path, text);
  process.stdout.write(`wrote ${path}\n`);
}

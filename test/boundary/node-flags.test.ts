import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parleyNodeFlags } from '../../bin/node-flags.ts';
import { repositoryRoot } from '../support/parley-process.ts';

/** The benches start parley with `parleyNodeFlags`; the ways people start it must pass the same. */
describe("parley's node flags", () => {
  it('are the ones `npm start` and the Docker image pass, before the entry point', () => {
    const packageJson = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    expect(packageJson.scripts.start).toBe(
      `scripts/node22.sh node ${parleyNodeFlags.join(' ')} bin/parley.ts`,
    );
    const dockerfile = readFileSync(join(repositoryRoot, 'Dockerfile'), 'utf8');
    const command = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(command ?? '[]')).toEqual(['node', ...parleyNodeFlags, 'bin/parley.ts']);
  });
});

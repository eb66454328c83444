import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parleyNodeFlags } from '../../bin/node-flags.ts';
import { repositoryRoot } from '../support/parley-process.ts';

/** The benches start parley with `parleyNodeFlags`; the ways people start it must pass the same. */
describe("parley's node flags", () => {
  it('are the ones `npm start`, scripts/start.sh and the Docker image pass, before the entry point', () => {
    const packageJson = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    // npm's shell gives way to the script, which gives way to node: no wrapper stays resident.
    expect(packageJson.scripts.start).toBe('exec scripts/start.sh');
    const startScript = readFileSync(join(repositoryRoot, 'scripts', 'start.sh'), 'utf8');
    expect(startScript).toContain(
      `\nexec scripts/node22.sh node ${parleyNodeFlags.join(' ')} bin/parley.ts "$@"\n`,
    );
    const dockerfile = readFileSync(join(repositoryRoot, 'Dockerfile'), 'utf8');
    const command = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(command ?? '[]')).toEqual(['node', ...parleyNodeFlags, 'bin/parley.ts']);
  });
});

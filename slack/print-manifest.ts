/**
 * Prints the Slack app manifest for a command prefix, e.g. `node slack/print-manifest.ts parley-`
 * for /parley-imagine … (match SLACK_COMMAND_PREFIX). Without a prefix it prints manifest.json.
 */
import { buildSlackManifest } from '../adapters/slack/app-manifest.ts';

const commandPrefix = process.argv[2] ?? '';
process.stdout.write(`${JSON.stringify(buildSlackManifest({ commandPrefix }), null, 2)}\n`);

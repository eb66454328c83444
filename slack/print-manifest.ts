/**
 * Prints the Slack app manifest to paste into https://api.slack.com/apps (Create New App → From a
 * manifest). `npm run slack-manifest` prints slack/manifest.json (Socket Mode);
 * `npm run slack-manifest -- --http https://bot.example.com/slack/events` the HTTP-mode one, whose
 * request URLs point at parley; `--prefix parley-` puts a prefix before every command (match
 * SLACK_COMMAND_PREFIX); `--assistant-view` keeps the legacy `assistant_view` (and its events) for an
 * app made before `agent_view` that has not moved yet. A bare first word is taken as the prefix.
 */
import { parseArgs } from 'node:util';
import { type AiExperience, buildSlackManifest } from '../adapters/slack/app-manifest.ts';

const usage =
  'usage: npm run slack-manifest -- [--http https://<your host>/slack/events] [--prefix parley-] [--assistant-view]';

function main(): number {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(
      `${usage}\nPrints the Slack app manifest to paste into https://api.slack.com/apps (docs/slack.md).\n`,
    );
    return 0;
  }
  let parsed: ReturnType<typeof parseManifestArguments>;
  try {
    parsed = parseManifestArguments(args);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage}\n`);
    return 1;
  }
  process.stdout.write(`${JSON.stringify(buildSlackManifest(parsed), null, 2)}\n`);
  return 0;
}

function parseManifestArguments(args: string[]): {
  commandPrefix: string;
  requestUrl?: string;
  experience: AiExperience;
} {
  const { values, positionals } = parseArgs({
    args,
    options: {
      http: { type: 'string' },
      prefix: { type: 'string' },
      // An app made before agent_view that has not moved yet keeps assistant_view.
      'assistant-view': { type: 'boolean' },
    },
    allowPositionals: true,
  });
  const commandPrefix = values.prefix ?? positionals[0] ?? '';
  const experience: AiExperience = values['assistant-view'] ? 'assistant' : 'agent';
  if (!/^[a-z0-9_-]*$/.test(commandPrefix)) throw new Error(`the prefix may hold only a-z, 0-9, - and _`);
  if (values.http === undefined) return { commandPrefix, experience };
  // Slack sends requests only to public https URLs (manifest reference, "request_url").
  let url: URL;
  try {
    url = new URL(values.http);
  } catch {
    throw new Error(`--http must be a URL such as https://bot.example.com/slack/events, not ${values.http}`);
  }
  if (url.protocol !== 'https:') throw new Error(`--http must be an https:// URL: Slack calls only those`);
  return { commandPrefix, requestUrl: url.href, experience };
}

process.exitCode = main();

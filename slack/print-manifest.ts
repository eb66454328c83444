/**
 * Prints the Slack app manifest to paste into https://api.slack.com/apps (Create New App → From a
 * manifest). `npm run slack-manifest` prints slack/manifest.json (Socket Mode);
 * `npm run slack-manifest -- --http https://bot.example.com/slack/events` the HTTP-mode one, whose
 * request URLs point at parley; `--prefix parley-` puts a prefix before every command (match
 * SLACK_COMMAND_PREFIX); `--assistant-view` keeps the legacy `assistant_view` (and its events) for an
 * app made before `agent_view` that has not moved yet. A bare first word is taken as the prefix.
 * To install in many workspaces by OAuth (SLACK_CLIENT_ID …): `--redirect https://bot.example.com/slack/oauth_redirect`
 * lists the redirect URL, `--token-rotation` turns on expiring tokens, `--org-deploy` lets an
 * Enterprise Grid org install it org-wide (docs/slack.md, "Distribute to many workspaces").
 */
import { parseArgs } from 'node:util';
import { type AiExperience, buildSlackManifest } from '../adapters/slack/app-manifest.ts';

const usage =
  'usage: npm run slack-manifest -- [--http https://<your host>/slack/events] [--prefix parley-] [--assistant-view] [--redirect https://<your host>/slack/oauth_redirect] [--token-rotation] [--org-deploy]';

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

function parseManifestArguments(args: string[]): Parameters<typeof buildSlackManifest>[0] & {
  commandPrefix: string;
  experience: AiExperience;
} {
  const { values, positionals } = parseArgs({
    args,
    options: {
      http: { type: 'string' },
      prefix: { type: 'string' },
      // An app made before agent_view that has not moved yet keeps assistant_view.
      'assistant-view': { type: 'boolean' },
      redirect: { type: 'string' },
      'token-rotation': { type: 'boolean' },
      'org-deploy': { type: 'boolean' },
    },
    allowPositionals: true,
  });
  const commandPrefix = values.prefix ?? positionals[0] ?? '';
  const experience: AiExperience = values['assistant-view'] ? 'assistant' : 'agent';
  if (!/^[a-z0-9_-]*$/.test(commandPrefix)) throw new Error(`the prefix may hold only a-z, 0-9, - and _`);
  const distribution = {
    ...(values.redirect === undefined
      ? {}
      : {
          redirectUrl: httpsUrl(
            '--redirect',
            values.redirect,
            'https://bot.example.com/slack/oauth_redirect',
          ),
        }),
    isTokenRotationEnabled: values['token-rotation'] === true,
    isOrgDeployEnabled: values['org-deploy'] === true,
  };
  if (values.http === undefined) return { commandPrefix, experience, ...distribution };
  const requestUrl = httpsUrl('--http', values.http, 'https://bot.example.com/slack/events');
  return { commandPrefix, requestUrl, experience, ...distribution };
}

/** Slack sends requests and installers only to public https URLs (manifest reference, "request_url", "redirect_urls"). */
function httpsUrl(flag: string, value: string, example: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${flag} must be a URL such as ${example}, not ${value}`);
  }
  if (url.protocol !== 'https:') throw new Error(`${flag} must be an https:// URL: Slack calls only those`);
  return url.href;
}

process.exitCode = main();

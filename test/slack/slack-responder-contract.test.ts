import { webApi } from '@slack/bolt';
import { afterAll, beforeAll } from 'vitest';
import { createAgentSessions } from '../../adapters/slack/agent-session-records.ts';
import { createChannelResponder } from '../../adapters/slack/channel-responder.ts';
import { slackLimits } from '../../adapters/slack/slack-limits.ts';
import { createSlackOutbound } from '../../adapters/slack/slack-outbound.ts';
import { createWorkspaceFeatures } from '../../adapters/slack/workspace-features.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { describeResponderContract } from '../support/responder-contract.ts';
import { buttonsOf } from './reply-blocks.ts';

let slack: FakeSlack;
let client: webApi.WebClient;
const outbound = createSlackOutbound();
let placeCount = 0;

beforeAll(async () => {
  slack = await startFakeSlack();
  client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
afterAll(() => slack.close());

type ShownBlock = {
  type?: string;
  text?: string | { text?: string };
  fields?: Array<{ text?: string }>;
  elements?: Array<{ text?: string }>;
};

/** The texts a block shows (buttons are read apart). */
function textsOfBlock(block: ShownBlock): string[] {
  if (block.type === 'actions') return [];
  if (typeof block.text === 'string') return [block.text];
  return [
    block.text?.text ?? '',
    ...(block.fields ?? []).map((field) => field.text ?? ''),
    ...(block.elements ?? []).map((element) => element.text ?? ''),
  ].filter((text) => text !== '');
}

/**
 * What a person reads in a message: its blocks' texts, or its `text` when it has no blocks (with
 * blocks, Slack shows `text` only in notifications).
 */
function readable(message: { text?: string; blocks?: unknown[] }): string {
  const blocks = (message.blocks ?? []) as ShownBlock[];
  return blocks.length === 0 ? (message.text ?? '') : blocks.flatMap(textsOfBlock).join('\n');
}

// A slash command's answer in a channel (no response_url: private answers are ephemeral posts).
describeResponderContract({
  name: 'Slack channel',
  async open() {
    placeCount += 1;
    const channel = `C0RESPOND${placeCount}`;
    const responder = createChannelResponder({
      place: {
        client,
        teamId: slack.workspace.teamId,
        channel,
        threadTs: undefined,
        recipientUserId: 'U0PERSON01',
      },
      context: {
        features: createWorkspaceFeatures(),
        outbound,
        logger: createCapturedLogger().logger,
        stopButtonDelayMs: 60_000,
        thinkingStatusDelayMs: 1_000,
        agentSessions: createAgentSessions('auto'),
      },
      respond: undefined,
    });
    return {
      responder,
      // All `markdown` blocks of one payload together (docs.slack.dev, "Markdown block").
      maxMessageLength: slackLimits.markdownBlockCharacters,
      shown: async () =>
        slack
          .messages(channel)
          .filter((message) => message.botId !== undefined)
          .map((message) => ({
            text: readable(message),
            buttons: buttonsOf(message).map((button) => button.text.text),
          })),
      shownPrivately: async () =>
        slack.ephemeralMessages
          .filter((message) => message.channel === channel && message.user === 'U0PERSON01')
          .map((message) => readable(message)),
    };
  },
});

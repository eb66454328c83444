import { webApi } from '@slack/bolt';
import { afterAll, beforeAll } from 'vitest';
import { createChannelResponder } from '../../adapters/slack/channel-responder.ts';
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

/** Every readable text of a message: its notification text and its blocks' texts. */
function readable(message: { text?: string; blocks?: unknown[] }): string {
  return [message.text ?? '', JSON.stringify(message.blocks ?? [])].join('\n');
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
      },
      respond: undefined,
    });
    return {
      responder,
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

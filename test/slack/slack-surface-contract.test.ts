import { webApi } from '@slack/bolt';
import { afterAll, beforeAll } from 'vitest';
import { createAgentSessions } from '../../adapters/slack/agent-session-records.ts';
import type { SlackDeliveryContext } from '../../adapters/slack/reply-place.ts';
import { createReplySurface } from '../../adapters/slack/reply-surface.ts';
import { createSlackOutbound } from '../../adapters/slack/slack-outbound.ts';
import { createWorkspaceFeatures } from '../../adapters/slack/workspace-features.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { describeSurfaceContract, type OpenedSurface } from '../support/surface-contract.ts';
import { buttonsOf, markdownOf } from './reply-blocks.ts';

let slack: FakeSlack;
let client: webApi.WebClient;
let context: SlackDeliveryContext;
let placeCount = 0;

// The fake keeps Slack's documented per-method tiers: the surface must stay within them.
beforeAll(async () => {
  slack = await startFakeSlack();
  client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  context = {
    features: createWorkspaceFeatures(),
    outbound: createSlackOutbound(),
    logger: createCapturedLogger().logger,
    stopButtonDelayMs: 60_000,
    thinkingStatusDelayMs: 1_000,
    agentSessions: createAgentSessions('auto'),
  };
});
afterAll(() => slack.close());

function open({ isInThread }: { isInThread: boolean }): OpenedSurface {
  placeCount += 1;
  const channel = `C0CONTRACT${placeCount}`;
  const threadTs = `1700000000.00${String(placeCount).padStart(4, '0')}`;
  slack.addMessage({ channel, ts: threadTs, user: 'U0PERSON01', text: 'question' });
  const surface = createReplySurface({
    place: {
      client,
      teamId: slack.workspace.teamId,
      channel,
      threadTs: isInThread ? threadTs : undefined,
      recipientUserId: 'U0PERSON01',
    },
    context,
  });
  return {
    surface,
    shown: async () =>
      slack
        .messages(channel, isInThread ? threadTs : undefined)
        .filter((message) => message.botId !== undefined)
        .map((message) => ({
          // A natively streamed message holds its Markdown as text; a rewritten one in a markdown block.
          text: markdownOf(message) ?? message.text ?? '',
          buttons: buttonsOf(message).map((button) => button.text.text),
        })),
  };
}

describeSurfaceContract({
  name: 'Slack thread (native streaming)',
  open: async () => open({ isInThread: true }),
});
describeSurfaceContract({
  name: 'Slack channel (chat.update)',
  open: async () => open({ isInThread: false }),
});

import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentSessions } from '../../adapters/slack/agent-session-records.ts';
import { createChannelResponder } from '../../adapters/slack/channel-responder.ts';
import { createSlackOutbound } from '../../adapters/slack/slack-outbound.ts';
import { createWorkspaceFeatures } from '../../adapters/slack/workspace-features.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { OutgoingFile } from '../../src/delivery/surface.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { buttonsOf } from './reply-blocks.ts';

let slack: FakeSlack;
let client: webApi.WebClient;
const outbound = createSlackOutbound();
const regenerate: Action = { id: 'parley:extract.regenerate:files', label: 'Regenerate', style: 'secondary' };
const file: OutgoingFile = { name: 'rows.csv', mimeType: 'text/csv', bytes: Buffer.from('a,b\n1,2\n') };

beforeAll(async () => {
  slack = await startFakeSlack({ fileShareDelayMs: 50 });
  client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
afterAll(() => slack.close());

function responderIn(channel: string) {
  return createChannelResponder({
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
    attribution: '<@U0PERSON01> used `/extract rows`',
  });
}

const lines = (count: number) =>
  Array.from({ length: count }, (_, index) => `${index + 1}. a line of the answer about the rows`).join('\n');

describe('a Slack command answer with files', () => {
  it('shows a text too long for the files comment as the answer, whole, with the files and buttons under it', async () => {
    const responder = responderIn('C0LONGFILES1');
    const answer = lines(120);
    await responder.progress('⏳ reading the rows…');
    await responder.send({ text: answer, files: [file], actions: [regenerate] });

    const messages = slack.messages('C0LONGFILES1').filter((message) => message.botId !== undefined);
    expect(messages).toHaveLength(3);
    const [text, files, buttons] = messages;
    // The attribution above the answer, then the answer as Markdown.
    const [attribution, markdown] = (text?.blocks ?? []) as Array<{ type: string; text?: string }>;
    expect(JSON.stringify(attribution)).toContain('used `/extract rows`');
    expect(markdown).toEqual({ type: 'markdown', text: answer });
    expect(files?.files?.map((shared) => shared.name)).toEqual(['rows.csv']);
    expect(files?.text).toBe('');
    expect(buttonsOf(buttons).map((button) => button.text.text)).toEqual(['Regenerate']);
  });

  it('keeps a short text as the comment on the files', async () => {
    const responder = responderIn('C0LONGFILES2');
    await responder.send({ text: 'Two rows.', files: [file] });

    const messages = slack.messages('C0LONGFILES2').filter((message) => message.botId !== undefined);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.text).toBe('<@U0PERSON01> used `/extract rows`\nTwo rows.');
    expect(messages[0]?.files?.map((shared) => shared.name)).toEqual(['rows.csv']);
  });
});

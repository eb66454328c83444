import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import { appMention, buttonClick, type InstallableWorkspace, slashCommand } from '../fakes/slack/index.ts';
import { installByOAuth, oauthEnvironment } from '../slack/install-by-oauth.ts';
import { buttonsOf, finishedReplies } from '../slack/reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';

/**
 * The workspace axis of the Slack access matrix: with parley installed by OAuth in two workspaces, a
 * person of Alpha who names Bravo's channel, thread or message through an entry point (a payload
 * Slack would never send, or a forged one) reaches none of Bravo's data. Alpha's payload is
 * answered with Alpha's installation, whose token cannot see Bravo's channel (the fake refuses it
 * `channel_not_found`, as Slack does for a channel of another workspace), and its conversation key
 * names Alpha, so Bravo's history, answer and messages stay out of the model's request and unchanged.
 */
const testApp = { clientId: '5555555555.6666666666', clientSecret: 'fake-client-secret-workspaces-0123' };
const alpha = { teamId: 'T0WSALPHA', channels: ['C0WSALPHA'] };
const bravo = { teamId: 'T0WSBRAVO', channels: ['C0WSBRAVO'] };
const alphaPerson = 'U0WSALPHA1';
const bravoPerson = 'U0WSBRAVO1';
const secret = 'bravo-only-marmalade';

describe('slack entry points across workspaces: a person of one workspace reaches nothing of another', () => {
  let bot: SlackUnderTest;
  const workspaces = new Map<string, InstallableWorkspace>();
  let bravoThread = '';
  let bravoReplyTs = '';
  let bravoReplyText = '';
  let bravoHistory = '';
  let regenerateActionId = '';

  const originOf = (teamId: string) => ({ teamId, botUserId: workspaces.get(teamId)?.botUserId ?? '' });
  const bravoKey = () =>
    conversationKeyOf({
      platform: 'slack',
      workspace: bravo.teamId,
      channel: 'C0WSBRAVO',
      thread: bravoThread,
    });

  beforeAll(async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      slackOptions: { ...testApp, nativeStreaming: 'unknown_method' },
      environment: oauthEnvironment(testApp),
      prepare: (slack) => {
        for (const workspace of [alpha, bravo]) {
          workspaces.set(workspace.teamId, slack.addInstallableWorkspace(workspace));
        }
      },
    });
    const appOrigin = `http://127.0.0.1:${bot.adapter.port}`;
    for (const teamId of [alpha.teamId, bravo.teamId]) {
      expect((await installByOAuth({ appOrigin, slack: bot.slack, teamId })).status).toBe(200);
    }
    // Bravo's person talks to parley in Bravo: the data the rows below must not reach.
    bot.gateway.enqueue({ text: `Kept in Bravo: ${secret}.` });
    const mention = appMention({
      channel: 'C0WSBRAVO',
      text: `remember ${secret}`,
      user: bravoPerson,
      teamId: bravo.teamId,
      botUserId: originOf(bravo.teamId).botUserId,
    });
    await bot.deliverEvent(mention, { origin: originOf(bravo.teamId) });
    bravoThread = String(mention.ts);
    const [reply] = await finishedReplies(bot, 'C0WSBRAVO', bravoThread);
    if (reply === undefined) throw new Error('Bravo got no reply');
    bravoReplyTs = reply.ts;
    bravoReplyText = reply.text;
    regenerateActionId =
      buttonsOf(reply).find((button) => button.text.text === 'Regenerate')?.action_id ?? '';
    bravoHistory = JSON.stringify(await bot.services.history.load(bravoKey()));
    expect(bravoHistory).toContain(secret);
  });
  afterAll(() => bot.close());

  /** Alpha's person then talks in Alpha's own channel: once answered, the row's payload was handled. */
  async function afterwardsInAlpha(word: string) {
    bot.gateway.enqueue({ text: `Alpha answers ${word}.` });
    const mention = appMention({
      channel: 'C0WSALPHA',
      text: word,
      user: alphaPerson,
      teamId: alpha.teamId,
      botUserId: originOf(alpha.teamId).botUserId,
    });
    await bot.deliverEvent(mention, { origin: originOf(alpha.teamId) });
    await finishedReplies(bot, 'C0WSALPHA', String(mention.ts));
  }

  /** Checks Bravo kept everything; returns how many of the row's calls Slack refused Alpha's token. */
  async function expectBravoUntouched(requestsBefore: number, callsBefore: number) {
    const requests = bot.gateway.requests
      .slice(requestsBefore)
      .map((request) => JSON.stringify(request.body));
    expect(requests.filter((body) => body.includes(secret))).toEqual([]);
    expect(JSON.stringify(await bot.services.history.load(bravoKey()))).toBe(bravoHistory);
    expect(
      bot.slack.messages('C0WSBRAVO', bravoThread).find((message) => message.ts === bravoReplyTs)?.text,
    ).toBe(bravoReplyText);
    // Nothing Alpha's installation asked of Bravo's channel was answered.
    const alphaTokens = new Set(
      [...bot.slack.oauth.tokens.entries()]
        .filter(([, issued]) => issued.teamId === alpha.teamId)
        .map(([token]) => token),
    );
    const reachedBravo = bot.slack.calls.filter(
      (call) =>
        alphaTokens.has(call.token ?? '') &&
        JSON.stringify(call.arguments).includes('C0WSBRAVO') &&
        call.result.ok === true,
    );
    expect(reachedBravo).toEqual([]);
    return bot.slack.calls
      .slice(callsBefore)
      .filter(
        (call) =>
          alphaTokens.has(call.token ?? '') &&
          JSON.stringify(call.arguments).includes('C0WSBRAVO') &&
          call.result.error === 'channel_not_found',
      ).length;
  }

  it('mention: an event of Alpha naming Bravo’s channel and thread', async () => {
    const requestsBefore = bot.gateway.requests.length;
    const callsBefore = bot.slack.calls.length;
    bot.gateway.enqueue({ text: 'What did Bravo say?' });
    await bot.deliverEvent(
      appMention({
        channel: 'C0WSBRAVO',
        threadTs: bravoThread,
        text: 'what was remembered here?',
        user: alphaPerson,
        teamId: alpha.teamId,
        botUserId: originOf(alpha.teamId).botUserId,
      }),
      { origin: originOf(alpha.teamId) },
    );
    await afterwardsInAlpha('after the mention');
    // The reply was tried with Alpha's installation, and Slack refused it Bravo's channel.
    expect(await expectBravoUntouched(requestsBefore, callsBefore)).toBeGreaterThan(0);
    bot.gateway.reset();
  });

  it('slash-command:summarize: a command of Alpha naming Bravo’s channel', async () => {
    const requestsBefore = bot.gateway.requests.length;
    const callsBefore = bot.slack.calls.length;
    bot.gateway.enqueue({ text: 'A summary.' });
    await bot.deliverCommand(
      slashCommand({ command: '/summarize', user: alphaPerson, channel: 'C0WSBRAVO', teamId: alpha.teamId }),
    );
    await afterwardsInAlpha('after the summary');
    // conversations.history was asked with Alpha's token, and refused.
    expect(await expectBravoUntouched(requestsBefore, callsBefore)).toBeGreaterThan(0);
    bot.gateway.reset();
  });

  it('button:regenerate: a click of Alpha on Bravo’s reply', async () => {
    const requestsBefore = bot.gateway.requests.length;
    const callsBefore = bot.slack.calls.length;
    bot.gateway.enqueue({ text: 'Regenerated.' });
    const click = buttonClick({
      actionId: regenerateActionId,
      messageTs: bravoReplyTs,
      threadTs: bravoThread,
      channel: 'C0WSBRAVO',
      user: alphaPerson,
    });
    await bot.deliverInteraction({ ...click, team: { id: alpha.teamId, domain: 'wsalpha' } });
    await afterwardsInAlpha('after the click');
    await expectBravoUntouched(requestsBefore, callsBefore);
    bot.gateway.reset();
  });
});

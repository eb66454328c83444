import { afterEach, describe, expect, it } from 'vitest';
import { appMention, slashCommand, viewSubmission } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from '../slack/slack-under-test.ts';

/** /config's modal, user groups and refusals on Slack: the real Bolt app against the fake Slack. */
let bot: SlackUnderTest;
afterEach(() => bot.close());

const admin = 'U0ADMIN001';
const chatRequests = () =>
  bot.gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

async function openConfigModal(channel: string) {
  const before = bot.slack.openedViews.length;
  await bot.deliverCommand(slashCommand({ command: '/config', user: admin, channel }));
  return (await bot.slack.waitFor(() => bot.slack.openedViews[before])).view;
}

describe('/config on Slack', () => {
  it('opens a modal from the slash command; a submitted budget takes effect for the next request', async () => {
    bot = await startSlackUnderTest({ mode: 'http' });
    bot.slack.addUser({ id: admin, name: 'grace', isAdmin: true });
    const view = await openConfigModal('C0CONFIG01');
    expect(view).toMatchObject({
      type: 'modal',
      callback_id: 'parley:form:config',
      title: { text: 'parley settings' },
    });
    const blocks = view.blocks as Array<{ type: string; block_id?: string }>;
    expect(blocks.filter((block) => block.type === 'header')).toHaveLength(2);
    expect(blocks.map((block) => block.block_id)).toContain('server.BUDGET_USER_DAILY');

    // A wrong value keeps the modal open, with the problem beside its field.
    const refused = (await bot.deliverInteraction(
      viewSubmission({ view, user: admin, values: { 'server.BUDGET_USER_DAILY': 'lots' } }),
    )) as { body?: string };
    expect(JSON.parse(refused.body ?? '{}')).toMatchObject({
      response_action: 'errors',
      errors: { 'server.BUDGET_USER_DAILY': expect.stringContaining('must be an amount') },
    });

    await bot.deliverInteraction(
      viewSubmission({ view, user: admin, values: { 'server.BUDGET_USER_DAILY': '0.00001' } }),
    );
    const confirmation = await bot.slack.waitFor(() =>
      bot.slack.ephemeralMessages.find((message) => message.text.includes('BUDGET_USER_DAILY')),
    );
    expect(confirmation).toMatchObject({ user: admin, channel: 'C0CONFIG01' });
    expect(confirmation.text).toBe('BUDGET_USER_DAILY for this workspace is now 0.00001.');

    await bot.deliverEvent(appMention({ channel: 'C0CONFIG01', text: 'hello', user: 'U0ADA00001' }));
    const refusal = await bot.slack.waitFor(() =>
      bot.slack.calls.find((call) => JSON.stringify(call.arguments).includes('Not sent')),
    );
    expect(JSON.stringify(refusal)).toContain('your daily budget has 0.00001 of 0.00001 left');
    expect(chatRequests()).toEqual([]);
  });

  it('tells a person who is not an admin that /config is for admins', async () => {
    bot = await startSlackUnderTest({ mode: 'http' });
    await bot.deliverCommand(
      slashCommand({ command: '/config', user: 'U0ADA00001', channel: 'C0CONFIG02', text: 'show' }),
    );
    const answer = await bot.slack.waitFor(() => bot.slack.ephemeralMessages[0]);
    expect(answer.text).toContain('Only server admins can use /config.');
    expect(bot.slack.openedViews).toEqual([]);
  });
});

describe('access on Slack', () => {
  it('a person in a blocked user group gets no reply and one ephemeral notice', async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      environment: { ACCESS_BLOCK_ROLE_IDS: 'S0BLOCKED1' },
      prepare: (slack) =>
        slack.addUserGroup({ id: 'S0BLOCKED1', handle: 'interns', userIds: ['U0MALLORY1'] }),
    });
    // The groups are listed once at start, in the background.
    await bot.slack.waitFor(() => bot.slack.calls.find((call) => call.method === 'usergroups.list'));
    await pause(50);
    for (const text of ['hello?', 'anyone?']) {
      await bot.deliverEvent(appMention({ channel: 'C0ACCESS01', text, user: 'U0MALLORY1' }));
    }
    const notice = await bot.slack.waitFor(() => bot.slack.ephemeralMessages[0]);
    expect(notice).toMatchObject({ user: 'U0MALLORY1', channel: 'C0ACCESS01' });
    expect(notice.text).toBe('Sorry, you cannot use parley here. A server admin decides who can.');
    await pause(400);
    expect(bot.slack.ephemeralMessages).toHaveLength(1);
    expect(bot.slack.calls.filter((call) => call.method === 'chat.postMessage')).toEqual([]);
    expect(chatRequests()).toEqual([]);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appHomeOpened, appMention } from '../fakes/slack/index.ts';
import { finishedReplies } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

describe('slack App Home: what parley does, your usage and budgets, your settings', () => {
  let bot: SlackUnderTest;
  const homeText = (userId: string) =>
    JSON.stringify(bot.slack.agent.homeViews.get(userId)?.view.blocks ?? []);

  beforeAll(async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      slackOptions: { nativeStreaming: 'not_allowed' },
      prepare: (fake) => {
        fake.addUser({ id: 'U0ADMIN001', isAdmin: true });
        fake.addUser({ id: 'U0MEMBER01' });
      },
    });
  });
  afterAll(() => bot.close());
  beforeEach(() => {
    bot.reset();
    bot.slack.agent.isHomeTabEnabled = true;
  });

  it('publishes the tab when a person opens it, with what they spent since', async () => {
    bot.gateway.enqueue({ text: 'Hello there.' });
    const question = appMention({ channel: 'C0HOME0001', user: 'U0MEMBER01', text: 'hi' });
    await bot.deliverEvent(question);
    await finishedReplies(bot, 'C0HOME0001', String(question.ts));

    await bot.deliverEvent(appHomeOpened({ channel: 'D0HOME0001', user: 'U0MEMBER01', tab: 'home' }));
    const published = await bot.slack.waitFor(() => bot.slack.agent.homeViews.get('U0MEMBER01'));

    expect(published.view.type).toBe('home');
    const text = homeText('U0MEMBER01');
    expect(text).toContain('Your usage and budgets');
    expect(text).toMatch(/1 requests?/);
    expect(text).toContain('/summarize');
    expect(text).toContain('every thread is its own conversation');
    expect(text).toContain('Settings you may change');
    expect(text).toContain('set by workspace admins with `/config`');
    expect(bot.slack.agent.suggestedPrompts).toEqual([]);
  });

  it('tells an admin what /config changes', async () => {
    await bot.deliverEvent(appHomeOpened({ channel: 'D0HOME0002', user: 'U0ADMIN001', tab: 'home' }));
    await bot.slack.waitFor(() => bot.slack.agent.homeViews.get('U0ADMIN001'));

    expect(homeText('U0ADMIN001')).toContain('`/config` changes budgets, access and channel settings');
    expect(homeText('U0ADMIN001')).toContain('`/model` and `/system` set a conversation’s model');
  });

  it('logs, and publishes nothing, when the app’s Home tab is off', async () => {
    bot.slack.agent.isHomeTabEnabled = false;
    await bot.deliverEvent(appHomeOpened({ channel: 'D0HOME0003', user: 'U0MEMBER01', tab: 'home' }));
    const call = await bot.slack.waitFor(() => bot.slack.callsTo('views.publish')[0]);

    expect(call.result.error).toBe('not_enabled');
    expect(bot.slack.agent.homeViews.size).toBe(0);
    await bot.slack.waitFor(() => bot.logOutput().includes('could not publish the Home tab'));
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { slashCommand } from '../fakes/slack/index.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

describe('slack: who may change settings, and private answers when Slack refuses the usual way', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http' });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('lets workspace admins and owners change /model, as users.info says they are', async () => {
    bot.slack.addUser({ id: 'U0ADMIN001', isAdmin: true });
    bot.slack.addUser({ id: 'U0OWNER001', isOwner: true });

    await bot.deliverCommand(
      slashCommand({ command: '/model', text: 'vision-model', channel: 'C0ADMINS01', user: 'U0ADMIN001' }),
    );
    await bot.deliverCommand(
      slashCommand({ command: '/model', text: 'default', channel: 'C0ADMINS02', user: 'U0OWNER001' }),
    );
    const [switched, reset] = await bot.slack.waitFor(() => {
      const answers = ['C0ADMINS01', 'C0ADMINS02'].map((channel) =>
        bot.slack.messages(channel).find((message) => message.botId !== undefined),
      );
      return answers.every(Boolean) ? answers : undefined;
    });

    expect(switched?.text).toContain('switched this conversation to *vision-model*');
    expect(reset?.text).toContain('set this conversation back to the default model');
  });
});

// A command that waited behind a long reply can outlive its response_url (30 minutes): here every
// response_url has expired by the time parley answers.
describe('slack: private answers once the response_url has expired', () => {
  let bot: SlackUnderTest;

  beforeAll(async () => {
    bot = await startSlackUnderTest({ mode: 'http', slackOptions: { responseUrlLifetimeMs: 0 } });
  });
  afterAll(() => bot.close());
  beforeEach(() => bot.reset());

  it('answers with chat.postEphemeral instead', async () => {
    await bot.deliverCommand(slashCommand({ command: '/model', text: '', channel: 'C0EXPIRED1' }));
    const notice = await bot.slack.waitFor(() =>
      bot.slack.ephemeralMessages.find((message) => message.source === 'chat.postEphemeral'),
    );

    expect(bot.slack.responseUrlPosts.map((post) => post.status)).toEqual([404]);
    expect(notice).toMatchObject({ channel: 'C0EXPIRED1', user: 'U0PERSON01' });
    expect(notice.text).toContain('This conversation uses');
  });

  it('sends the answer to the DM with the app when the person is no longer in the channel', async () => {
    bot.slack.addChannel({ id: 'C0LEFTCHAN', members: ['U0SOMEONE1'] });

    await bot.deliverCommand(slashCommand({ command: '/model', text: '', channel: 'C0LEFTCHAN' }));
    const dm = await bot.slack.waitFor(() =>
      bot.slack.messages('D0PERSON01').find((message) => message.botId !== undefined),
    );

    expect(bot.slack.ephemeralMessages).toEqual([]);
    expect(dm.text).toContain('This conversation uses');
    expect(dm.text).toContain('<#C0LEFTCHAN>');
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Actor } from '../../src/access/actor.ts';
import { type ConversationPlace, conversationKeyOf } from '../../src/conversation/turn.ts';
import { appMention, type InstallableWorkspace, slashCommand } from '../fakes/slack/index.ts';
import { eventually, installByOAuth, oauthEnvironment } from './install-by-oauth.ts';
import { buttonsOf } from './reply-blocks.ts';
import { type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

const testApp = { clientId: '7777777777.8888888888', clientSecret: 'fake-client-secret-deletes-01234' };
const person = 'U0PERSON01';
const actor: Actor = { id: person, name: 'person', roleIds: [], isAdmin: true, context: 'server' };
const adminId = 'U0ADMIN009';

/**
 * SLACK_UNINSTALL_DELETES=on: the moment a workspace uninstalls parley, everything parley keeps of it
 * goes (conversations, summaries, notes, /model, /config, the people index), the audit trail records
 * it, and another workspace keeps all of its own.
 */
describe('slack uninstall with SLACK_UNINSTALL_DELETES=on', () => {
  let bot: SlackUnderTest;
  const workspaces = new Map<string, InstallableWorkspace>();

  beforeAll(async () => {
    bot = await startSlackUnderTest({
      mode: 'http',
      slackOptions: { ...testApp, nativeStreaming: 'unknown_method' },
      environment: { ...oauthEnvironment(testApp), SLACK_UNINSTALL_DELETES: 'on' },
      prepare: (slack) => {
        slack.addUser({ id: adminId, name: 'ada', isAdmin: true });
        // The second channel of each workspace: parley holds no conversation there, only a schedule.
        for (const [teamId, channel, quiet] of [
          ['T0DELETE1', 'C0DELETE1', 'C0DELETE2'],
          ['T0KEEPER1', 'C0KEEPER1', 'C0KEEPER2'],
        ] as const) {
          workspaces.set(teamId, slack.addInstallableWorkspace({ teamId, channels: [channel, quiet] }));
        }
      },
      scheduleClockStartMs: Date.parse('2025-06-02T06:00:00Z'),
    });
  });
  afterAll(() => bot.close());

  /** A conversation in the workspace, with notes, a /model, and /config overrides of the workspace and channel. */
  async function fill(teamId: string) {
    const workspace = workspaces.get(teamId);
    const channel = workspace?.channels[0] ?? '';
    const origin = { teamId, botUserId: workspace?.botUserId ?? '' };
    bot.gateway.enqueue({ text: `Noted for ${teamId}.` });
    const mention = appMention({ channel, text: `remember ${teamId}`, teamId, botUserId: origin.botUserId });
    await bot.deliverEvent(mention, { origin });
    await bot.slack.waitFor(() =>
      bot.slack
        .messages(channel, String(mention.ts))
        .find((message) => message.botId !== undefined && buttonsOf(message)[0]?.text.text === 'Regenerate'),
    );
    const conversationKey = conversationKeyOf({
      platform: 'slack',
      workspace: teamId,
      channel,
      thread: String(mention.ts),
    });
    const place: ConversationPlace = { platform: 'slack', workspace: teamId, channel };
    await bot.services.settings.update(conversationKey, { systemPrompt: `Be brief in ${teamId}.` });
    for (const scope of ['place', 'person'] as const) {
      await bot.services.memory.remember({
        actor,
        conversationKey,
        scope,
        text: `${scope} note of ${teamId}`,
        now: new Date(),
      });
    }
    for (const scope of ['server', 'channel'] as const) {
      await bot.services.overrides.change({
        place,
        scope,
        name: 'SYSTEM_PROMPT',
        value: `Prompt of ${teamId}.`,
        changedBy: { id: person, name: 'person' },
        at: new Date(),
      });
    }
    return { conversationKey, place };
  }

  async function keptOf({ conversationKey, place }: { conversationKey: string; place: ConversationPlace }) {
    const overrides = await bot.services.overrides.read(place);
    return {
      history: await bot.services.history.load(conversationKey),
      settings: await bot.services.settings.get(conversationKey),
      placeNotes: await bot.services.memory.notesOf({ actor, conversationKey, scope: 'place' }),
      personNotes: await bot.services.memory.notesOf({ actor, conversationKey, scope: 'person' }),
      overrides: { ...overrides.server, ...overrides.channel },
    };
  }

  it('removes everything of the uninstalled workspace at once, and nothing of the other', async () => {
    const appOrigin = `http://127.0.0.1:${bot.adapter.port}`;
    for (const teamId of workspaces.keys()) {
      expect((await installByOAuth({ appOrigin, slack: bot.slack, teamId })).status).toBe(200);
    }
    const gone = await fill('T0DELETE1');
    const kept = await fill('T0KEEPER1');
    const scheduler = bot.scheduling?.scheduler;
    if (scheduler === undefined) throw new Error('no manual scheduling');
    const quietPlaces = [
      conversationKeyOf({ platform: 'slack', workspace: 'T0DELETE1', channel: 'C0DELETE2' }),
      conversationKeyOf({ platform: 'slack', workspace: 'T0KEEPER1', channel: 'C0KEEPER2' }),
    ];
    for (const place of quietPlaces) {
      const [, teamId = '', channel = ''] = place.split(':');
      await bot.deliverCommand(
        slashCommand({
          command: '/schedule',
          text: 'every weekday 09:00 news?',
          user: adminId,
          channel,
          teamId,
        }),
      );
      await vi.waitFor(async () => expect(await scheduler.listInPlace(place)).toHaveLength(1));
    }
    expect(await bot.services.history.load(quietPlaces[0] ?? '')).toEqual([]);
    const before = await keptOf(gone);
    expect(before.history.length).toBeGreaterThan(0);
    expect(before.placeNotes).toHaveLength(1);
    expect(before.personNotes).toHaveLength(1);

    bot.slack.revokeInstallation({ teamId: 'T0DELETE1' });
    await bot.deliverEvent({ type: 'app_uninstalled' }, { origin: { teamId: 'T0DELETE1', botUserId: 'U0' } });
    await eventually(
      async () =>
        (await bot.adapter.installations?.has({
          teamId: 'T0DELETE1',
          enterpriseId: undefined,
          isEnterpriseInstall: false,
        })) === false,
    );
    await bot.slack.waitFor(() => bot.logOutput().includes('and everything kept of its workspaces'));

    expect(await keptOf(gone)).toEqual({
      history: [],
      settings: {},
      placeNotes: [],
      personNotes: [],
      overrides: {},
    });
    expect(await bot.app.journal.listOrphans('slack')).toEqual([]);
    expect(await scheduler.listInPlace(quietPlaces[0] ?? '')).toEqual([]);
    expect(await scheduler.listInPlace(quietPlaces[1] ?? '')).toHaveLength(1);
    const other = await keptOf(kept);
    expect(other.history.length).toBe(before.history.length);
    expect(other.settings).toEqual({ systemPrompt: 'Be brief in T0KEEPER1.' });
    expect(other.placeNotes).toHaveLength(1);
    expect(other.personNotes).toHaveLength(1);
    expect(other.overrides).toMatchObject({ SYSTEM_PROMPT: 'Prompt of T0KEEPER1.' });

    const audit = await bot.services.audit.read({
      platform: 'slack',
      workspace: 'T0DELETE1',
      kind: 'installation',
      limit: 20,
    });
    const removal = audit.entries.find((entry) => entry.what.startsWith('removed the installation'));
    expect(removal?.what).toBe("removed the installation and the workspace's data (app_uninstalled)");
    expect(removal?.details?.history).toBeGreaterThan(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import {
  appMention,
  type EnterpriseOrg,
  type EventOrigin,
  type InstallableWorkspace,
} from '../fakes/slack/index.ts';
import {
  eventually,
  followRedirect,
  installationsKey,
  installByOAuth,
  oauthEnvironment,
} from './install-by-oauth.ts';
import { buttonsOf } from './reply-blocks.ts';
import { type SlackMode, type SlackUnderTest, startSlackUnderTest } from './slack-under-test.ts';

const testApp = { clientId: '1111111111.2222222222', clientSecret: 'fake-client-secret-0123456789abcdef' };

/** Three workspaces of their own, and an Enterprise Grid org of two installed org-wide. */
const alpha = { teamId: 'T0ALPHA01', teamName: 'Alpha', channels: ['C0ALPHA01'] };
const bravo = { teamId: 'T0BRAVO01', teamName: 'Bravo', channels: ['C0BRAVO01'] };
const charlie = { teamId: 'T0CHARLI1', teamName: 'Charlie', channels: ['C0CHARLI1'] };
const gridOne = {
  teamId: 'T0GRID001',
  teamName: 'Grid One',
  enterpriseId: 'E0GRID001',
  channels: ['C0GRID001'],
};
const gridTwo = {
  teamId: 'T0GRID002',
  teamName: 'Grid Two',
  enterpriseId: 'E0GRID001',
  channels: ['C0GRID002'],
};

for (const mode of ['http', 'socket'] as const satisfies SlackMode[]) {
  describe(`slack installed by OAuth in many workspaces and an Enterprise Grid org (${mode})`, () => {
    let bot: SlackUnderTest;
    let appOrigin: string;
    const workspaces = new Map<string, InstallableWorkspace>();
    let org: EnterpriseOrg;

    beforeAll(async () => {
      bot = await startSlackUnderTest({
        mode,
        slackOptions: { ...testApp, nativeStreaming: 'unknown_method' },
        environment: oauthEnvironment(testApp),
        prepare: (slack) => {
          for (const workspace of [alpha, bravo, charlie, gridOne, gridTwo]) {
            workspaces.set(workspace.teamId, slack.addInstallableWorkspace(workspace));
          }
          org = slack.addEnterprise({ enterpriseId: 'E0GRID001', name: 'Grid Org' });
        },
      });
      const port = mode === 'http' ? bot.adapter.port : bot.adapter.installPort;
      appOrigin = `http://127.0.0.1:${port}`;
    });
    afterAll(() => bot.close());

    const originOf = (teamId: string): EventOrigin => {
      const workspace = workspaces.get(teamId);
      if (workspace === undefined) throw new Error(`no workspace ${teamId}`);
      return workspace.enterpriseId === undefined
        ? { teamId, botUserId: workspace.botUserId }
        : {
            teamId,
            enterpriseId: workspace.enterpriseId,
            isEnterpriseInstall: true,
            botUserId: org.botUserId,
          };
    };

    /** A person mentions parley in the workspace's channel; resolves with parley's finished reply. */
    async function talk(teamId: string, text: string) {
      const origin = originOf(teamId);
      const channel = workspaces.get(teamId)?.channels[0] ?? '';
      bot.gateway.enqueue({ text: `Answer to ${text}.` });
      const mention = appMention({ channel, text, teamId, botUserId: origin.botUserId });
      await bot.deliverEvent(mention, { origin });
      const reply = await bot.slack.waitFor(() =>
        bot.slack
          .messages(channel, String(mention.ts))
          .find(
            (message) => message.botId !== undefined && buttonsOf(message)[0]?.text.text === 'Regenerate',
          ),
      );
      return {
        reply,
        conversationKey: conversationKeyOf({
          platform: 'slack',
          workspace: teamId,
          channel,
          thread: String(mention.ts),
        }),
      };
    }
    const conversations = new Map<string, string>();

    /** The token Slack issued to a workspace's (or its org's) installation. */
    function tokensOf(owner: { teamId?: string; enterpriseId?: string }): string[] {
      return [...bot.slack.oauth.tokens.entries()]
        .filter(([, issued]) =>
          owner.teamId !== undefined
            ? issued.teamId === owner.teamId && !issued.isEnterpriseInstall
            : issued.isEnterpriseInstall && issued.enterpriseId === owner.enterpriseId,
        )
        .map(([token]) => token);
    }

    it('installs three workspaces and an org, each sealed in the store with no token in the clear', async () => {
      for (const teamId of [alpha.teamId, bravo.teamId, charlie.teamId]) {
        const outcome = await installByOAuth({ appOrigin, slack: bot.slack, teamId });
        expect(outcome.status).toBe(200);
        expect(outcome.page).toContain(
          `parley is installed in the workspace ${workspaces.get(teamId)?.teamName}`,
        );
      }
      const orgInstall = await installByOAuth({
        appOrigin,
        slack: bot.slack,
        enterpriseId: org.enterpriseId,
      });
      expect(orgInstall.page).toContain('parley is installed in the organization Grid Org');

      const addresses = await bot.adapter.installations?.list();
      expect(addresses?.map((address) => address.key).sort()).toEqual([
        'enterprise:E0GRID001',
        'team:T0ALPHA01',
        'team:T0BRAVO01',
        'team:T0CHARLI1',
      ]);
      const stored = JSON.stringify(await bot.installationKeyv.get('team:T0ALPHA01'));
      expect(stored).toContain('"sealed":"v1.');
      const [alphaToken] = tokensOf({ teamId: alpha.teamId });
      expect(alphaToken).toMatch(/^xoxb-/);
      expect(stored).not.toContain(alphaToken);
      expect(stored).not.toContain('xoxb-');
      expect(bot.logOutput()).not.toContain(alphaToken);
      expect(bot.logOutput()).not.toContain(installationsKey);
      // oauth.v2.access took each code with the app's credentials; auth.test ran with each new token.
      expect(bot.slack.callsTo('oauth.v2.access')).toHaveLength(4);
      expect(
        bot.slack
          .callsTo('auth.test')
          .map((call) => call.token)
          .sort(),
      ).toEqual(
        [alpha, bravo, charlie]
          .flatMap(({ teamId }) => tokensOf({ teamId }))
          .concat(tokensOf(org))
          .sort(),
      );
      const audit = await bot.services.audit.read({
        platform: 'slack',
        workspace: alpha.teamId,
        kind: 'installation',
        limit: 20,
      });
      expect(audit.entries.map((entry) => entry.what)).toEqual(['installed parley in the workspace Alpha']);
    });

    it('answers in every workspace with that workspace’s token; no history or setting crosses', async () => {
      await bot.services.overrides.change({
        place: { platform: 'slack', workspace: alpha.teamId, channel: alpha.channels[0] ?? '' },
        scope: 'server',
        name: 'SYSTEM_PROMPT',
        value: 'You are the Alpha workspace assistant.',
        changedBy: { id: 'U0ADMIN01', name: 'admin' },
        at: new Date(),
      });
      const words: Record<string, string> = {
        [alpha.teamId]: 'apricot',
        [bravo.teamId]: 'blueberry',
        [charlie.teamId]: 'cherry',
        [gridOne.teamId]: 'grape',
        [gridTwo.teamId]: 'guava',
      };
      for (const [teamId, word] of Object.entries(words)) {
        const { reply, conversationKey } = await talk(teamId, `remember ${word}`);
        expect(reply.text).toContain(`Answer to remember ${word}.`);
        conversations.set(teamId, conversationKey);
      }
      for (const [teamId, word] of Object.entries(words)) {
        const workspace = workspaces.get(teamId);
        const channel = workspace?.channels[0] ?? '';
        const expected = workspace?.enterpriseId === undefined ? tokensOf({ teamId }) : tokensOf(org);
        const posted = bot.slack.calls.filter(
          (call) => call.arguments.channel === channel && call.method.startsWith('chat.'),
        );
        expect(posted.length).toBeGreaterThan(0);
        expect(new Set(posted.map((call) => call.token))).toEqual(new Set(expected));
        const request = JSON.stringify(
          bot.gateway.requests.find((recorded) => JSON.stringify(recorded.body).includes(`remember ${word}`))
            ?.body,
        );
        for (const [otherTeam, otherWord] of Object.entries(words)) {
          if (otherTeam !== teamId) expect(request).not.toContain(otherWord);
        }
        expect(request.includes('You are the Alpha workspace assistant.')).toBe(teamId === alpha.teamId);
        const history = JSON.stringify(await bot.services.history.load(conversations.get(teamId) ?? ''));
        expect(history).toContain(`remember ${word}`);
        for (const [otherTeam, otherWord] of Object.entries(words)) {
          if (otherTeam !== teamId) expect(history).not.toContain(otherWord);
        }
      }
      // The fake refuses a workspace's channel to any other workspace's token: none was refused.
      expect(bot.slack.calls.filter((call) => call.result.error === 'channel_not_found')).toEqual([]);
    });

    it('keeps a budget set in one workspace there: the same person is refused in it and answered in another', async () => {
      await bot.services.overrides.change({
        place: { platform: 'slack', workspace: alpha.teamId, channel: alpha.channels[0] ?? '' },
        scope: 'server',
        name: 'BUDGET_USER_DAILY',
        value: 0.00001,
        changedBy: { id: 'U0ADMIN01', name: 'admin' },
        at: new Date(),
      });
      const origin = originOf(alpha.teamId);
      const requestsBefore = bot.gateway.requests.length;
      await bot.deliverEvent(
        appMention({
          channel: 'C0ALPHA01',
          text: 'over budget?',
          teamId: alpha.teamId,
          botUserId: origin.botUserId,
        }),
        { origin },
      );
      const refusal = await bot.slack.waitFor(() =>
        bot.slack.calls.find(
          (call) =>
            call.arguments.channel === 'C0ALPHA01' &&
            JSON.stringify(call.arguments).includes('your daily budget'),
        ),
      );
      expect(refusal.token).toBe(tokensOf({ teamId: alpha.teamId })[0]);
      expect(
        bot.gateway.requests.slice(requestsBefore).map((request) => JSON.stringify(request.body)),
      ).toEqual([]);
      // The same person (Slack user ids are global) in Bravo, where no budget was set.
      const { reply } = await talk(bravo.teamId, 'within budget');
      expect(reply.text).toContain('Answer to within budget.');
    });

    it('keeps an access rule of one workspace there: a person blocked in Bravo is answered in Charlie', async () => {
      const blocked = 'U0BLOCKED1';
      await bot.services.overrides.change({
        place: { platform: 'slack', workspace: bravo.teamId, channel: bravo.channels[0] ?? '' },
        scope: 'server',
        name: 'ACCESS_BLOCK_USER_IDS',
        value: [blocked],
        changedBy: { id: 'U0ADMIN01', name: 'admin' },
        at: new Date(),
      });
      const requestsBefore = bot.gateway.requests.length;
      const bravoOrigin = originOf(bravo.teamId);
      await bot.deliverEvent(
        appMention({
          channel: 'C0BRAVO01',
          text: 'let me in',
          user: blocked,
          teamId: bravo.teamId,
          botUserId: bravoOrigin.botUserId,
        }),
        { origin: bravoOrigin },
      );
      const refusal = await bot.slack.waitFor(() =>
        bot.slack.calls.find(
          (call) =>
            call.arguments.channel === 'C0BRAVO01' &&
            JSON.stringify(call.arguments).includes('cannot use parley'),
        ),
      );
      expect(refusal.token).toBe(tokensOf({ teamId: bravo.teamId })[0]);
      expect(bot.gateway.requests.length).toBe(requestsBefore);

      const charlieOrigin = originOf(charlie.teamId);
      bot.gateway.enqueue({ text: 'Welcome in Charlie.' });
      const mention = appMention({
        channel: 'C0CHARLI1',
        text: 'let me in',
        user: blocked,
        teamId: charlie.teamId,
        botUserId: charlieOrigin.botUserId,
      });
      await bot.deliverEvent(mention, { origin: charlieOrigin });
      const reply = await bot.slack.waitFor(() =>
        bot.slack
          .messages('C0CHARLI1', String(mention.ts))
          .find(
            (message) => message.botId !== undefined && buttonsOf(message)[0]?.text.text === 'Regenerate',
          ),
      );
      expect(reply.text).toContain('Welcome in Charlie.');
    });

    it('counts a person’s budget once across an org installed org-wide, and apart from a workspace outside it', async () => {
      // Enterprise Grid user ids are the org's: one person in every workspace of the org
      // (docs.slack.dev reference/methods/migration.exchange, "global user IDs").
      const person = 'W0ORGPER01';
      for (const workspace of [gridOne, gridTwo, charlie]) {
        await bot.services.overrides.change({
          place: { platform: 'slack', workspace: workspace.teamId, channel: workspace.channels[0] ?? '' },
          scope: 'server',
          name: 'BUDGET_TOKENS_USER_DAILY',
          value: 500_000,
          changedBy: { id: 'U0ADMIN01', name: 'admin' },
          at: new Date(),
        });
      }
      /** The person mentions parley in a workspace's channel; resolves with the mention's ts. */
      const mentionIn = async (workspace: typeof gridOne | typeof charlie, text: string) => {
        const origin = originOf(workspace.teamId);
        const mention = appMention({
          channel: workspace.channels[0] ?? '',
          text,
          user: person,
          teamId: workspace.teamId,
          botUserId: origin.botUserId,
        });
        await bot.deliverEvent(mention, { origin });
        return String(mention.ts);
      };
      const answered = (channel: string, ts: string) =>
        bot.slack.waitFor(() =>
          bot.slack
            .messages(channel, ts)
            .find(
              (message) => message.botId !== undefined && buttonsOf(message)[0]?.text.text === 'Regenerate',
            ),
        );

      // Grid One: within the budget, and the gateway reports a reply that spends more than all of it.
      bot.gateway.enqueue({
        text: 'A costly answer.',
        usage: { prompt_tokens: 400_000, completion_tokens: 200_000 },
      });
      const costly = await answered('C0GRID001', await mentionIn(gridOne, 'a costly question'));
      expect(costly.text).toContain('A costly answer.');

      // Grid Two, the same org: the spend in Grid One counts; refused before the gateway is asked.
      const requestsBefore = bot.gateway.requests.length;
      await mentionIn(gridTwo, 'one more?');
      const refusal = await bot.slack.waitFor(() =>
        bot.slack.calls.find(
          (call) =>
            call.arguments.channel === 'C0GRID002' &&
            JSON.stringify(call.arguments).includes('your daily token budget'),
        ),
      );
      expect(refusal.token).toBe(tokensOf(org)[0]);
      expect(bot.gateway.requests.length).toBe(requestsBefore);

      // Charlie is outside the org: the same id there is counted apart, and answered.
      bot.gateway.enqueue({ text: 'Charlie answers.' });
      const reply = await answered('C0CHARLI1', await mentionIn(charlie, 'and here?'));
      expect(reply.text).toContain('Charlie answers.');
    });

    it('acks an event of a workspace with no installation and answers nothing', async () => {
      const stranger = bot.slack.addInstallableWorkspace({ teamId: 'T0STRANGE', channels: ['C0STRANGE'] });
      const before = bot.slack.calls.length;
      const delivery = await bot.deliverEvent(
        appMention({
          channel: 'C0STRANGE',
          text: 'hello?',
          teamId: stranger.teamId,
          botUserId: stranger.botUserId,
        }),
        { origin: { teamId: stranger.teamId, botUserId: stranger.botUserId } },
      );
      if (mode === 'http') expect(delivery.status).toBe(200);
      await bot.slack.waitFor(() => bot.logOutput().includes('no usable installation'));
      expect(bot.slack.calls.slice(before)).toEqual([]);
      expect(bot.logOutput()).toContain('no Slack installation for team T0STRANGE');
    });

    it('removes an installation at once on app_uninstalled while a reply streams in another workspace', async () => {
      // A reply in Bravo is being written when Charlie uninstalls parley.
      const slowAnswer = 'A slow answer in Bravo, written a few letters at a time.';
      bot.gateway.enqueue({ text: slowAnswer, chunkSize: 3, delayBetweenChunksMs: 15 });
      const bravoOrigin = originOf(bravo.teamId);
      const slowMention = appMention({
        channel: 'C0BRAVO01',
        text: 'take your time',
        teamId: bravo.teamId,
        botUserId: bravoOrigin.botUserId,
      });
      await bot.deliverEvent(slowMention, { origin: bravoOrigin });
      await bot.slack.waitFor(() =>
        bot.slack
          .messages('C0BRAVO01', String(slowMention.ts))
          .find((message) => message.botId !== undefined),
      );

      bot.slack.revokeInstallation({ teamId: charlie.teamId });
      await bot.deliverEvent({ type: 'app_uninstalled' }, { origin: originOf(charlie.teamId) });
      await eventually(
        async () => !(await bot.adapter.installations?.list())?.some((a) => a.teamId === charlie.teamId),
      );
      await bot.slack.waitFor(() => bot.logOutput().includes('removed the installation of team:T0CHARLI1'));
      const audit = await bot.services.audit.read({
        platform: 'slack',
        workspace: charlie.teamId,
        kind: 'installation',
        limit: 20,
      });
      expect(audit.entries.map((entry) => entry.what)).toContain(
        'removed the installation (app_uninstalled)',
      );

      // tokens_revoked after it (Slack promises no order) finds nothing more to remove.
      await bot.deliverEvent(
        { type: 'tokens_revoked', tokens: { bot: [workspaces.get(charlie.teamId)?.botUserId] } },
        { origin: originOf(charlie.teamId) },
      );
      await bot.slack.waitFor(() =>
        bot.logOutput().includes('an uninstall came for a workspace with no installation'),
      );

      const streamed = await bot.slack.waitFor(() =>
        bot.slack
          .messages('C0BRAVO01', String(slowMention.ts))
          .find(
            (message) => message.botId !== undefined && buttonsOf(message)[0]?.text.text === 'Regenerate',
          ),
      );
      expect(streamed.text).toBe(slowAnswer);
      const { reply } = await talk(bravo.teamId, 'still there?');
      expect(reply.text).toContain('Answer to still there?.');
      // History stays for HISTORY_RETENTION_DAYS, for a reinstall (docs/data.md).
      const kept = await bot.services.history.load(conversations.get(charlie.teamId) ?? '');
      expect(JSON.stringify(kept)).toContain('cherry');
    });

    it('removes an org-wide installation on tokens_revoked with bot tokens', async () => {
      bot.slack.revokeInstallation({ enterpriseId: org.enterpriseId });
      await bot.deliverEvent(
        { type: 'tokens_revoked', tokens: { bot: [org.botUserId] } },
        { origin: originOf(gridTwo.teamId) },
      );
      await eventually(
        async () => !(await bot.adapter.installations?.list())?.some((a) => a.isEnterpriseInstall),
      );
      expect((await bot.adapter.installations?.list())?.map((address) => address.key).sort()).toEqual([
        'team:T0ALPHA01',
        'team:T0BRAVO01',
      ]);
    });

    it('refuses a replayed or forged state, and stores nothing', async () => {
      const first = await installByOAuth({ appOrigin, slack: bot.slack, teamId: charlie.teamId });
      expect(first.status).toBe(200);
      await bot.adapter.installations?.deleteInstallation({
        teamId: charlie.teamId,
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });

      const replayed = await followRedirect(first.redirectUrl, first.cookie);
      expect(replayed.status).toBe(400);
      expect(replayed.page).toContain('expired or was used already');

      const installPage = await fetch(`${appOrigin}/slack/install`, { redirect: 'manual' });
      const cookie = (installPage.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const approved = bot.slack.approveInstall({
        authorizeUrl: installPage.headers.get('location') ?? '',
        teamId: charlie.teamId,
      });
      const forgedState = `${approved.state.slice(0, -4)}AAAA`;
      const forged = await followRedirect(
        `${appOrigin}/slack/oauth_redirect?${new URLSearchParams({ code: approved.code, state: forgedState })}`,
        cookie.replace(approved.state, forgedState),
      );
      expect(forged.status).toBe(400);
      expect(forged.page).not.toContain(approved.code);
      expect(
        (await bot.adapter.installations?.list())?.some((address) => address.teamId === charlie.teamId),
      ).toBe(false);
    });

    it('says on the page when oauth.v2.access fails or a scope is missing, and stores nothing', async () => {
      bot.slack.failNext({ method: 'oauth.v2.access', error: 'invalid_code' });
      const failed = await installByOAuth({ appOrigin, slack: bot.slack, teamId: charlie.teamId });
      expect(failed.status).toBe(502);
      expect(failed.page).toContain('Slack did not complete the install. Nothing was stored');

      const missing = await installByOAuth({
        appOrigin,
        slack: bot.slack,
        teamId: charlie.teamId,
        scopes: ['app_mentions:read', 'chat:write'],
      });
      expect(missing.status).toBe(400);
      expect(missing.page).toContain('without the permissions it needs (assistant:write, channels:history');
      expect(missing.page).toContain('Nothing was stored');
      expect(
        (await bot.adapter.installations?.list())?.some((address) => address.teamId === charlie.teamId),
      ).toBe(false);
      for (const token of tokensOf({ teamId: charlie.teamId })) expect(bot.logOutput()).not.toContain(token);
    });

    it('keeps a workspace’s memory there: Bravo’s shared note reaches Bravo’s model and not Charlie’s', async () => {
      // Last, as MEMORY makes each reply followed by model calls that read it for facts.
      expect((await installByOAuth({ appOrigin, slack: bot.slack, teamId: charlie.teamId })).status).toBe(
        200,
      );
      for (const workspace of [bravo, charlie]) {
        await bot.services.overrides.change({
          place: { platform: 'slack', workspace: workspace.teamId, channel: workspace.channels[0] ?? '' },
          scope: 'server',
          name: 'MEMORY',
          value: 'place',
          changedBy: { id: 'U0ADMIN01', name: 'admin' },
          at: new Date(),
        });
      }
      const remembered = await bot.services.memory.remember({
        actor: { id: 'U0ADMIN01', name: 'admin', roleIds: [], isAdmin: true, context: 'server' },
        conversationKey: conversationKeyOf({
          platform: 'slack',
          workspace: bravo.teamId,
          channel: 'C0BRAVO01',
        }),
        scope: 'place',
        text: 'The Bravo team ships on Thursdays.',
        now: new Date(),
      });
      expect(remembered.isKept).toBe(true);
      const requestOf = (word: string) =>
        JSON.stringify(
          bot.gateway.requests.find((request) => JSON.stringify(request.body).includes(word))?.body,
        );
      await talk(bravo.teamId, 'when do we ship, bravo');
      await talk(charlie.teamId, 'when do we ship, charlie');
      expect(requestOf('when do we ship, bravo')).toContain('The Bravo team ships on Thursdays.');
      expect(requestOf('when do we ship, charlie')).not.toContain('Thursdays');
    });
  });
}

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import type { Tool } from '../../src/tools/tool.ts';
import type { FakeMessage } from '../fakes/discord/index.ts';
import { makeDiscordAdmin, runDiscordConfig } from '../support/discord-admin.ts';
import { type DiscordUnderTest, startDiscordUnderTest } from '../support/discord-under-test.ts';
import { type DiscordEntryPoint, discordEntryPoints, type ToolRule, toolRules } from './entry-points.ts';

/**
 * Every Discord entry point against every kind of person who must be refused (issue 21): each cell
 * sends the real interaction or message through the fake Discord to the real discord.js client, and
 * must end in the refusal's words, privately where Discord allows, with zero gateway requests.
 * The entry points come from one list (entry-points.ts), which a test keeps equal to what the
 * adapter handles, so a new entry point cannot land without its rows here.
 */
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

interface Cell {
  /** Where the entry point is used: a server channel, or the person's DM with parley. */
  readonly place: 'server' | 'dm';
  readonly expected: RegExp;
}

interface People {
  readonly adminId: string;
  readonly malloryId: string;
  /** A role mallory has when the scenario says `withRole`. */
  readonly roleId: string;
  /** A role nobody in the cells has. */
  readonly otherRoleId: string;
}

interface Scenario {
  readonly name: string;
  readonly environment?: Record<string, string>;
  /** Rules an admin sets with /config before the cells run, given who is who. */
  readonly configure?: (people: People) => Record<string, string>[];
  readonly withRole?: boolean;
  /** What each entry point must answer here; an entry point absent from the map does not apply. */
  readonly cells: Partial<Record<DiscordEntryPoint, Cell>>;
}

const cannotUse = /Sorry, you cannot use parley here/;
const notSent = /Not sent: your daily budget has 0 of 0 left/;

/** The rows of entry points that spend (and so meet every rule), in a server channel. */
function everySpendingEntryPoint(expected: RegExp): Partial<Record<DiscordEntryPoint, Cell>> {
  const cell: Cell = { place: 'server', expected };
  return {
    mention: cell,
    'slash-command:chat': cell,
    'slash-command:search': cell,
    'slash-command:imagine': cell,
    'slash-command:summarize': cell,
    'message-command:ask': cell,
    'button:regenerate': cell,
    'scheduled-run': cell,
  };
}

const scenarios: Scenario[] = [
  {
    name: 'a blocked person',
    configure: ({ malloryId }) => [{ setting: 'ACCESS_BLOCK_USER_IDS', value: `<@${malloryId}>` }],
    cells: {
      ...everySpendingEntryPoint(cannotUse),
      'slash-command:timezone': { place: 'server', expected: cannotUse },
    },
  },
  {
    name: 'a person outside the allow list',
    configure: ({ adminId }) => [{ setting: 'ACCESS_ALLOW_USER_IDS', value: `<@${adminId}>` }],
    cells: everySpendingEntryPoint(cannotUse),
  },
  {
    name: 'a role without the command',
    withRole: true,
    configure: ({ otherRoleId }) => [
      {
        setting: 'ACCESS_COMMAND_ROLE_IDS',
        value: `chat=${otherRoleId},imagine=${otherRoleId},summarize=${otherRoleId}`,
      },
    ],
    cells: {
      mention: { place: 'server', expected: /\/chat is only for some roles/ },
      'slash-command:chat': { place: 'server', expected: /\/chat is only for some roles/ },
      'slash-command:imagine': { place: 'server', expected: /\/imagine is only for some roles/ },
      'slash-command:summarize': { place: 'server', expected: /\/summarize is only for some roles/ },
      'message-command:ask': { place: 'server', expected: /\/chat is only for some roles/ },
      // A scheduled prompt is answered as /chat.
      'scheduled-run': { place: 'server', expected: /\/chat is only for some roles/ },
    },
  },
  {
    name: 'a DM while DMs are off',
    environment: { ACCESS_DMS: 'off' },
    cells: {
      'direct-message': { place: 'dm', expected: /does not take direct messages here/ },
      'slash-command:chat': { place: 'dm', expected: /does not take direct messages here/ },
      'slash-command:imagine': { place: 'dm', expected: /does not take direct messages here/ },
    },
  },
  {
    name: 'a person whose daily budget is used up',
    environment: { BUDGET_USER_DAILY: '0' },
    cells: everySpendingEntryPoint(notSent),
  },
  {
    name: 'a role whose budget is used up (role budgets hold for /chat too)',
    withRole: true,
    configure: ({ roleId }) => [{ setting: 'BUDGET_ROLE_DAILY', value: `${roleId}=0` }],
    cells: {
      mention: { place: 'server', expected: /Not sent: the daily budget of a role of yours has 0 of 0 left/ },
      'slash-command:chat': {
        place: 'server',
        expected: /Not sent: the daily budget of a role of yours has 0 of 0 left/,
      },
      'slash-command:search': {
        place: 'server',
        expected: /Not sent: the daily budget of a role of yours has 0 of 0 left/,
      },
      'message-command:ask': {
        place: 'server',
        expected: /Not sent: the daily budget of a role of yours has 0 of 0 left/,
      },
      'scheduled-run': {
        place: 'server',
        expected: /Not sent: the daily budget of a role of yours has 0 of 0 left/,
      },
    },
  },
  {
    name: 'a person who is no admin, asking for admin things (a DM makes nobody one)',
    cells: {
      'slash-command:usage-of-another': {
        place: 'server',
        expected: /Only server admins can see what others spent/,
      },
      'slash-command:usage-of-another-in-dm': {
        place: 'dm',
        expected: /Only server admins can see what others spent/,
      },
      'slash-command:forget-another': { place: 'server', expected: /Only a server admin can do that/ },
      'slash-command:export-another': { place: 'server', expected: /Only a server admin can do that/ },
      'button:stop-another': {
        place: 'server',
        expected: /Only the person who asked \(or a server admin\) can stop this reply/,
      },
      'slash-command:memory-of-the-place': { place: 'server', expected: /Only a server admin can do that/ },
      'slash-command:audit': { place: 'server', expected: /Only a server admin can do that/ },
      // SCHEDULERS is admins unless the owner says otherwise.
      'slash-command:schedule-in-a-channel': {
        place: 'server',
        expected: /Only server admins \(and the roles the owner allows\) can schedule prompts in a channel/,
      },
    },
  },
  {
    // Its own scenario: a refused mention is told once an hour, which the mention row has used.
    name: 'a blocked person whose mention came while parley identified afresh',
    configure: ({ malloryId }) => [{ setting: 'ACCESS_BLOCK_USER_IDS', value: `<@${malloryId}>` }],
    cells: { 'missed-mention': { place: 'server', expected: cannotUse } },
  },
];

describe.each(scenarios)('Discord: $name', (scenario) => {
  let under: DiscordUnderTest;
  let people: People;
  beforeAll(async () => {
    under = await startDiscordUnderTest(
      { SEARCH_URL: 'http://127.0.0.1:9', ...scenario.environment },
      { scheduleClockStartMs: Date.now() },
    );
    const admin = makeDiscordAdmin(under);
    const mallory = under.discord.createUser({ username: 'mallory' });
    const roleId = under.discord.createRole({
      name: 'members',
      memberIds: scenario.withRole ? [mallory.id] : [],
    });
    const otherRoleId = under.discord.createRole({ name: 'askers' });
    people = { adminId: admin.id, malloryId: mallory.id, roleId, otherRoleId };
    await pause(150);
    for (const options of scenario.configure?.(people) ?? []) {
      const confirmation = await runDiscordConfig(under, {
        admin,
        options: options as Record<string, string>,
      });
      expect(confirmation.content).toMatch(/✅/);
    }
  }, 30_000);
  afterAll(() => under.close());

  // Not every rule applies to every entry point (DMs off says nothing about a server channel).
  const applicable = discordEntryPoints.filter((entryPoint) => scenario.cells[entryPoint] !== undefined);
  it.each(applicable)('%s is refused with its reason and makes no gateway request', async (entryPoint) => {
    const cell = scenario.cells[entryPoint];
    if (cell === undefined) throw new Error(`no cell for ${entryPoint}`);
    const { refusal, requestsBeforeActing, scheduleId } = await triggerAndWait({
      under,
      people,
      entryPoint,
      cell,
      withRole: scenario.withRole === true,
    });
    expect(refusal.content).toMatch(cell.expected);
    await pause(200);
    expect(
      under.gateway.requests
        .slice(requestsBeforeActing)
        .map((request) => JSON.stringify(request.body).slice(0, 300)),
    ).toEqual([]);
    // A refused run pauses its schedule: it does not come back to be refused every day.
    if (scheduleId !== undefined) await expectPaused(under, scheduleId);
  });
});

/** Uses the entry point as mallory and waits for the bot's answer in the cell's channel (or her DM). */
async function triggerAndWait({
  under,
  people,
  entryPoint,
  cell,
  withRole,
}: {
  under: DiscordUnderTest;
  people: People;
  entryPoint: DiscordEntryPoint;
  cell: Cell;
  withRole: boolean;
}): Promise<{ refusal: FakeMessage; requestsBeforeActing: number; scheduleId?: string }> {
  const dm = under.discord.directMessageChannel(people.malloryId);
  const channelId = cell.place === 'dm' ? dm : under.generalChannelId;
  const watched = [channelId, dm];
  const user = people.malloryId;
  // Buttons sit under a reply someone allowed asked for: its requests are not mallory's.
  const button = await replyWithButtons({ under, people, entryPoint, channelId });
  if (entryPoint === 'missed-mention') await answerTheAdmin({ under, people, channelId });
  const before = new Map(watched.map((channelId) => [channelId, under.botMessages(channelId).length]));
  const requestsBeforeActing = under.gateway.requests.length;
  let scheduleId: string | undefined;
  switch (entryPoint) {
    case 'mention':
      under.discord.sendUserMessage({ channelId, author: user, content: 'hello?', mentionsBot: true });
      break;
    case 'direct-message':
      under.discord.sendUserMessage({ channelId, author: user, content: 'hello?' });
      break;
    case 'slash-command:chat':
      under.discord.sendSlashCommand({ name: 'chat', channelId, user, options: { prompt: 'hello?' } });
      break;
    case 'slash-command:search':
      under.discord.sendSlashCommand({ name: 'search', channelId, user, options: { query: 'tides' } });
      break;
    case 'slash-command:imagine':
      under.discord.sendSlashCommand({ name: 'imagine', channelId, user, options: { prompt: 'a fox' } });
      break;
    case 'slash-command:memory-of-the-place':
      under.discord.sendSlashCommand({ name: 'memory', channelId, user, options: { place: true } });
      break;
    case 'slash-command:audit':
      under.discord.sendSlashCommand({ name: 'audit', channelId, user });
      break;
    case 'slash-command:summarize':
      under.discord.sendSlashCommand({ name: 'summarize', channelId, user });
      break;
    case 'slash-command:schedule-in-a-channel':
      under.discord.sendSlashCommand({
        name: 'schedule',
        channelId,
        user,
        options: { text: 'every day 9:00 hello?' },
      });
      break;
    case 'scheduled-run': {
      // Mallory's schedule, made before the rule that now refuses her; its run comes due.
      if (under.scheduling === undefined) throw new Error('the bot runs no manual scheduling');
      scheduleId = await under.scheduling.runScheduleOf({
        owner: {
          id: user,
          name: 'mallory',
          roleIds: withRole ? [people.roleId] : [],
          isAdmin: false,
          context: 'server',
        },
        conversationKey: conversationKeyOf({
          platform: 'discord',
          workspace: under.discord.guildId,
          channel: channelId,
        }),
        what: 'hello?',
      });
      break;
    }
    case 'slash-command:usage-of-another':
    case 'slash-command:usage-of-another-in-dm':
      under.discord.sendSlashCommand({ name: 'usage', channelId, user, options: { user: people.adminId } });
      break;
    case 'slash-command:forget-another':
      under.discord.sendSlashCommand({
        name: 'forget',
        subcommand: 'member',
        channelId,
        user,
        options: { user: people.adminId },
      });
      break;
    case 'slash-command:timezone':
      under.discord.sendSlashCommand({ name: 'timezone', channelId, user, options: { zone: 'Asia/Tokyo' } });
      break;
    case 'slash-command:export-another':
      under.discord.sendSlashCommand({ name: 'export', channelId, user, options: { user: people.adminId } });
      break;
    case 'button:regenerate':
    case 'button:stop-another':
      if (button === undefined) throw new Error('no button to press');
      under.discord.clickButton({ messageId: button.messageId, customId: button.customId, user });
      break;
    case 'missed-mention': {
      // The session is lost and the client identifies afresh: the mention never arrives as an
      // event, and the catch-up after READY reads it (events/gateway.mdx, "Resuming").
      const gap = under.discord.interruptGateway();
      await under.discord.waitFor(() => under.discord.identifiedSessionCount === 0);
      under.discord.sendUserMessage({ channelId, author: user, content: 'hello?', mentionsBot: true });
      gap.end();
      break;
    }
    case 'message-command:ask': {
      const messageId = under.discord.sendUserMessage({ channelId, content: 'Meet at 10 by the lake.' });
      const commandId = under.discord.sendMessageCommand({ name: 'Ask parley about this', messageId, user });
      await under.discord.waitFor(() =>
        under.discord.interactionResponses(commandId).find((response) => response.type === 9),
      );
      under.discord.submitModal({ interactionId: commandId, values: { question: 'when?' } });
      break;
    }
  }
  // A refused message is answered privately (in the DM); an answer about a message may go to the
  // thread parley opened for it, where a budget (known only once the turn is read) refuses it.
  const threadOf = (message: FakeMessage) => /^Answering in <#(\d+)>/.exec(message.content)?.[1];
  const refusal = await under.discord.waitFor(
    () => {
      const fresh = watched.flatMap((watchedId) =>
        under.botMessages(watchedId).slice(before.get(watchedId) ?? 0),
      );
      const threads = fresh.flatMap((message) => threadOf(message) ?? []);
      return [...fresh, ...threads.flatMap((threadId) => under.botMessages(threadId))].find((message) =>
        cell.expected.test(message.content),
      );
    },
    { timeoutMs: 20_000 },
  );
  return { refusal, requestsBeforeActing, ...(scheduleId === undefined ? {} : { scheduleId }) };
}

/** The schedule is paused, with the refusal as its last run. */
async function expectPaused(under: DiscordUnderTest, scheduleId: string): Promise<void> {
  const scheduler = under.scheduling?.scheduler;
  await vi.waitFor(async () => {
    const record = await scheduler?.get(scheduleId);
    expect(record?.state).toBe('paused');
    expect(['refused', 'unpaid']).toContain(record?.lastRun?.status);
  });
}

/** The admin asks in the channel first, so parley is active there and catches up on it. */
async function answerTheAdmin({
  under,
  people,
  channelId,
}: {
  under: DiscordUnderTest;
  people: People;
  channelId: string;
}): Promise<void> {
  under.gateway.enqueue({ text: JSON.stringify({ shouldSearch: false, query: '' }) });
  under.gateway.enqueue({ text: 'An answer for the admin before the gap.' });
  under.discord.sendUserMessage({ channelId, author: people.adminId, content: 'hi', mentionsBot: true });
  await under.discord.waitFor(() =>
    under
      .botMessages(channelId)
      .find((message) => message.content === 'An answer for the admin before the gap.'),
  );
}

/**
 * For the button rows: the admin asks, and the button mallory will press is found under the reply,
 * Regenerate once it is finished, Stop while it still streams.
 */
async function replyWithButtons({
  under,
  people,
  entryPoint,
  channelId,
}: {
  under: DiscordUnderTest;
  people: People;
  entryPoint: DiscordEntryPoint;
  channelId: string;
}): Promise<{ messageId: string; customId: string } | undefined> {
  const verb =
    entryPoint === 'button:regenerate'
      ? 'chat.regenerate'
      : entryPoint === 'button:stop-another'
        ? 'chat.stop'
        : '';
  if (verb === '') return undefined;
  const isStop = verb === 'chat.stop';
  // With search configured, the reply first asks the model whether to search.
  under.gateway.enqueue({ text: JSON.stringify({ shouldSearch: false, query: '' }) });
  under.gateway.enqueue(
    isStop
      ? { text: 'one two three four five six seven eight', chunkSize: 4, delayBetweenChunksMs: 300 }
      : { text: 'An answer for the admin.' },
  );
  under.discord.sendUserMessage({ channelId, author: people.adminId, content: 'count', mentionsBot: true });
  const pattern = new RegExp(`"custom_id":"([^"]*${verb.replace('.', '\\.')}[^"]*)"`);
  return under.discord.waitFor(
    () => {
      for (const message of under.botMessages(channelId)) {
        const customId = pattern.exec(JSON.stringify(message.components ?? []))?.[1];
        // Stop is pressed once the admin's answer streams, so all of its requests were made.
        const isReady = !isStop || /\bone\b/.test(message.content);
        if (customId !== undefined && isReady) return { messageId: message.id, customId };
      }
      return undefined;
    },
    { timeoutMs: 10_000 },
  );
}

/** A tool of the matrix's own that records each run: the proof it never ran past a rule. */
function probeTool(runs: unknown[], overrides: Partial<Tool> = {}): Tool {
  return {
    name: 'test_probe',
    title: 'Probe',
    description: 'A probe for the access matrix.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { isReadOnly: true, isDestructive: false, isOpenWorld: false },
    source: 'test',
    priceNanos: 0,
    deadlineMs: 5_000,
    maxResultCharacters: 40_000,
    describeCall: () => '⚙ probing',
    async run({ arguments: toolArguments }) {
      runs.push(toolArguments);
      // About ten thousand tokens: the next round's prompt grows by them.
      return { text: 'x'.repeat(40_000) };
    },
    ...overrides,
  };
}

const acting = { isReadOnly: false, isDestructive: true, isOpenWorld: false };

interface ToolRow {
  readonly environment?: Record<string, string>;
  readonly tool: (runs: unknown[]) => Tool;
  /** /config settings the admin makes first, given the role nobody in the row has. */
  readonly configure?: (otherRoleId: string) => Record<string, string>[];
  /** What the gateway is scripted to answer, round by round. */
  readonly script: readonly Parameters<DiscordUnderTest['gateway']['enqueue']>[0][];
  /** Denies the acting tool's question when it appears. */
  readonly denies?: boolean;
  /**
   * How the acting tool's question ends, after the reply that asked it has ended without waiting
   * (denied, or its time up): nothing runs, and no further request is made.
   */
  readonly questionEnds?: RegExp;
  /** How the reply ends, and what the gateway and the tool saw by then. */
  readonly expected: RegExp;
  readonly requests: number;
  readonly offersTools: readonly boolean[];
  readonly runs: number;
}

const toolRows: Record<ToolRule, ToolRow> = {
  'tool-off-in-channel': {
    tool: (runs) => probeTool(runs),
    configure: () => [{ setting: 'TOOLS', value: 'none' }],
    script: [{ text: 'No tools here.' }],
    expected: /^No tools here\./,
    requests: 1,
    offersTools: [false],
    runs: 0,
  },
  'role-without-the-tool': {
    tool: (runs) => probeTool(runs),
    configure: (otherRoleId) => [{ setting: 'TOOL_ROLE_IDS', value: `test_probe=${otherRoleId}` }],
    script: [{ text: 'Not for you.' }],
    expected: /^Not for you\./,
    requests: 1,
    offersTools: [false],
    runs: 0,
  },
  'budget-for-no-further-round': {
    // Enough for the first round; the second, with the probe's ten thousand tokens, is not sent.
    environment: { BUDGET_USER_DAILY: '0.005' },
    tool: (runs) => probeTool(runs),
    script: [{ toolCalls: [{ name: 'test_probe', arguments: {} }] }, { text: 'Never sent.' }],
    expected: /Not sent: your daily budget has 0\.00\d+ of 0\.005 left/,
    requests: 1,
    offersTools: [true],
    runs: 1,
  },
  'acting-tool-denied': {
    tool: (runs) => probeTool(runs, { annotations: acting }),
    script: [{ toolCalls: [{ name: 'test_probe', arguments: {} }] }, { text: 'I did not probe.' }],
    denies: true,
    questionEnds: /🚫 not run: .* denied it/,
    expected: /^I did not probe\./,
    requests: 2,
    offersTools: [true, true],
    runs: 0,
  },
  'acting-tool-unanswered': {
    environment: { TOOL_APPROVAL_TIMEOUT_S: '5' },
    tool: (runs) => probeTool(runs, { annotations: acting }),
    script: [{ toolCalls: [{ name: 'test_probe', arguments: {} }] }, { text: 'Nobody said yes.' }],
    questionEnds: /🚫 not run: nobody approved it within 5 s/,
    expected: /^Nobody said yes\./,
    requests: 2,
    offersTools: [true, true],
    runs: 0,
  },
};

describe.each(toolRules)('Discord tools: %s', (rule) => {
  const row = toolRows[rule];
  let under: DiscordUnderTest;
  afterAll(() => under.close());

  it('makes no gateway request beyond what the rule allows and never runs the tool past it', async () => {
    under = await startDiscordUnderTest({ CHAT_MODEL: 'tools-model', ...row.environment });
    const runs: unknown[] = [];
    under.app.toolbox.replace('test', [row.tool(runs)]);
    const admin = makeDiscordAdmin(under);
    const mallory = under.discord.createUser({ username: 'mallory' });
    const otherRoleId = under.discord.createRole({ name: 'probers' });
    await pause(150);
    for (const options of row.configure?.(otherRoleId) ?? []) {
      const confirmation = await runDiscordConfig(under, { admin, options });
      expect(confirmation.content).toMatch(/✅/);
    }
    for (const behaviour of row.script) under.gateway.enqueue(behaviour);
    const channelId = under.generalChannelId;
    under.discord.sendUserMessage({ channelId, author: mallory.id, content: 'probe it', mentionsBot: true });
    if (row.denies) {
      const question = await under.discord.waitFor(() =>
        under.botMessages(channelId).find((message) => message.content.includes('wants to')),
      );
      const deny = /"custom_id":"([^"]*tool\.deny[^"]*)"/.exec(JSON.stringify(question.components))?.[1];
      under.discord.clickButton({ messageId: question.id, customId: deny ?? '', user: mallory.id });
    }
    await under.discord.waitFor(
      () => under.botMessages(channelId).find((message) => row.expected.test(message.content)),
      { timeoutMs: 15_000 },
    );
    if (row.questionEnds) {
      const ends = row.questionEnds;
      await under.discord.waitFor(
        () => under.botMessages(channelId).find((message) => ends.test(message.content)),
        { timeoutMs: 15_000 },
      );
    }
    await pause(200);
    const bodies = under.gateway.requests.map((request) => request.body as { tools?: unknown[] });
    expect(bodies.map((body) => body.tools !== undefined)).toEqual(row.offersTools);
    expect(bodies).toHaveLength(row.requests);
    expect(runs).toHaveLength(row.runs);
  }, 30_000);
});

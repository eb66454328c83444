import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { findCommand } from '../../commands/all-commands.ts';
import type { CommandResponder, CommandServices } from '../../commands/define-command.ts';
import { parseCommandText } from '../../commands/parse-command-text.ts';
import { runAction } from '../../commands/run-action.ts';
import { runCommand } from '../../commands/run-command.ts';
import { createScheduledPlacesRegistry, type ScheduledPlaces } from '../../commands/scheduled-places.ts';
import { createScheduledRunner } from '../../commands/scheduled-run.ts';
import { createSurfaceResponder } from '../../commands/surface-responder.ts';
import type { Actor } from '../../src/access/actor.ts';
import type { Action } from '../../src/delivery/card.ts';
import type { Surface } from '../../src/delivery/surface.ts';
import { createScheduleStore, type ScheduleStore } from '../../src/scheduling/schedule-store.ts';
import { createScheduler, type Scheduler } from '../../src/scheduling/scheduler.ts';
import { createWheelEngine } from '../../src/scheduling/wheel-engine.ts';
import { createInProcessLock } from '../../src/state/keyed-lock.ts';
import { type FakeGateway, startFakeGateway } from '../fakes/gateway/index.ts';
import { createManualClock, type ManualClock } from '../support/manual-clock.ts';
import { buildTestBot, type TestBot } from '../support/test-bot.ts';

const apiKey = 'scheduled-runs-key-0123456789';
const channelKey = 'discord:guild-1:channel-1';
const admin: Actor = { id: 'ada', name: 'Ada', roleIds: [], isAdmin: true, context: 'server' };
const member: Actor = { id: 'bob', name: 'Bob', roleIds: ['role-1'], isAdmin: false, context: 'server' };

/**
 * A channel and DMs that keep what was posted, as a platform would show it, and the people the
 * platform knows now: whoever typed a command, as they were then, until a test changes them.
 */
function createRecordingPlaces(people: Map<string, Actor>) {
  const shown = new Map<string, string[]>();
  const surfaceFor = (key: string): Surface => {
    const texts = shown.get(key) ?? [];
    shown.set(key, texts);
    return {
      limits: { maxMessageLength: 2_000, minEditIntervalMs: 0 },
      async post(text) {
        texts.push(text);
        return { id: String(texts.length - 1) };
      },
      async edit(message, text) {
        texts[Number(message.id)] = text;
      },
      async setActions() {},
    };
  };
  const places: ScheduledPlaces = {
    platform: 'discord',
    responderIn: async (key) => createSurfaceResponder(surfaceFor(key)),
    directMessageWith: async (userId) => {
      const conversationKey = `discord:dm:dm-${userId}`;
      return { conversationKey, responder: createSurfaceResponder(surfaceFor(conversationKey)) };
    },
    actorNow: async ({ userId }) => {
      const actor = people.get(userId);
      return actor === undefined ? { isPresent: false, reason: 'left' } : { isPresent: true, actor };
    },
    readRecentMessages: async () => [],
  };
  return { places, people, shownIn: (key: string) => shown.get(key) ?? [] };
}

/** A responder for a person's command: what it answered, and the buttons it drew. */
function createAnswerResponder() {
  const answers: string[] = [];
  const actions: Action[] = [];
  const responder: CommandResponder = {
    surface: {
      limits: { maxMessageLength: 2_000, minEditIntervalMs: 0 },
      post: async (text) => {
        answers.push(text);
        return { id: String(answers.length) };
      },
      edit: async () => {},
    },
    progress: async () => undefined,
    async send(result) {
      if (result.text !== undefined) answers.push(result.text);
      actions.push(...(result.actions ?? []));
    },
  };
  return { responder, answers, actions };
}

interface Harness {
  readonly clock: ManualClock;
  readonly scheduler: Scheduler;
  readonly services: CommandServices;
  readonly recorded: ReturnType<typeof createRecordingPlaces>;
  stop(): Promise<void>;
}

describe('scheduled runs on the timer wheel, with a fake clock', () => {
  let fake: FakeGateway;
  let bot: TestBot;
  let store: ScheduleStore;
  let current: Harness | undefined;
  /** The people the platform knows, across the processes of one test (a restart keeps them). */
  let people: Map<string, Actor>;

  beforeAll(async () => {
    fake = await startFakeGateway({ apiKey });
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    await current?.stop();
    current = undefined;
    await bot?.close();
  });

  const startBot = (environment: Record<string, string> = {}) => {
    bot = buildTestBot({
      gatewayBaseUrl: fake.baseUrl,
      gatewayApiKey: apiKey,
      environment: { SCHEDULE_TIMEZONE: 'Europe/Berlin', ...environment },
    });
    store = createScheduleStore({
      store: bot.app.store.namespace('schedules-test'),
      lock: createInProcessLock(),
      logger: bot.logger,
    });
    fake.reset();
    people = new Map();
  };

  /** A process's scheduler: the store survives between two of them, as across a restart. */
  const startProcess = async (
    startMs: number,
    { graceMs = 15 * 60_000, perPlace = 20, perPerson = 10 } = {},
  ) => {
    const clock = createManualClock(startMs);
    const engine = createWheelEngine({
      store,
      clock,
      logger: bot.logger,
      maxAttempts: 3,
      retryBaseMs: 60_000,
      concurrency: 4,
    });
    const scheduler = createScheduler({
      store,
      engine,
      limits: {
        perPlace,
        perPerson,
        minIntervalMs: 15 * 60_000,
        graceMs,
        schedulers: { policy: 'admins', roleIds: [] },
      },
      logger: bot.logger,
      now: () => clock.now(),
    });
    const recorded = createRecordingPlaces(people);
    const registry = createScheduledPlacesRegistry();
    registry.register(recorded.places);
    const services: CommandServices = {
      ...bot.services,
      now: () => new Date(clock.now()),
      scheduling: {
        scheduler,
        places: registry,
        timeZone: 'Europe/Berlin',
        personalTimeZones: bot.app.personalTimeZones,
      },
    };
    await scheduler.start(createScheduledRunner({ services, places: registry, replyMaxTokens: 200 }));
    current = { clock, scheduler, services, recorded, stop: () => scheduler.stop() };
    return current;
  };

  const type = async (harness: Harness, user: Actor, line: string, conversationKey = channelKey) => {
    const [name = '', ...rest] = line.replace(/^\//, '').split(' ');
    const command = findCommand(name);
    if (command === undefined) throw new Error(`no command ${name}`);
    harness.recorded.people.set(user.id, user);
    const answer = createAnswerResponder();
    await runCommand({
      command,
      rawOptions: parseCommandText(command.options, rest.join(' ')),
      conversationKey,
      user,
      responder: answer.responder,
      services: harness.services,
      readRecentMessages: async () => [],
    });
    return answer;
  };

  it('runs a weekday digest at 09:00 Berlin time, once a day, as a reply in the channel', async () => {
    startBot();
    // Monday 2 June 2025, 08:00 in Berlin.
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    const made = await type(harness, admin, '/schedule every weekday 09:00 what changed today?');
    expect(made.answers.join('\n')).toMatch(
      /Scheduled “what changed today\?” here, every weekday 09:00; first run Mon 2 Jun, 09:00/,
    );
    expect(made.actions.map((action) => action.label)).toEqual(['Pause', 'Delete']);

    await harness.clock.advanceTo(Date.parse('2025-06-02T06:59:59Z'));
    expect(fake.requests).toHaveLength(0);
    await harness.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    await vi.waitFor(() => expect(harness.recorded.shownIn(channelKey)).toHaveLength(2));
    expect(fake.requests).toHaveLength(1);
    expect(harness.recorded.shownIn(channelKey)[0]).toMatch(/🕘 what changed today\? — scheduled by Ada/);
    expect(harness.recorded.shownIn(channelKey)[1]).toMatch(/what changed today/);
    // The run is the channel's history, and Ada's spend.
    expect((await bot.services.history.load(channelKey)).map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
    ]);

    // Tuesday to Friday, one run a day; none on the weekend; then Monday's.
    for (const [day, expected] of [
      ['03', 2],
      ['04', 3],
      ['05', 4],
      ['06', 5],
      ['07', 5],
      ['08', 5],
      ['09', 6],
    ] as const) {
      await harness.clock.advanceTo(Date.parse(`2025-06-${day}T07:00:01Z`));
      await vi.waitFor(() => expect(fake.requests).toHaveLength(expected));
      await vi.waitFor(async () =>
        expect((await harness.scheduler.listInPlace(channelKey))[0]?.nextRunAtMs).toBeGreaterThan(
          harness.clock.now(),
        ),
      );
    }
    const [record] = await harness.scheduler.listInPlace(channelKey);
    expect(record?.runCount).toBe(6);
    expect(new Date(record?.nextRunAtMs ?? 0).toISOString()).toBe('2025-06-10T07:00:00.000Z');
  });

  it('reads times in the zone /config sets for the server, and keeps 09:00 there across its DST change', async () => {
    startBot();
    // Friday 31 October 2025, 08:00 in New York (EDT, UTC-4); the US leaves DST on Sunday 2 November.
    const harness = await startProcess(Date.parse('2025-10-31T12:00:00Z'));
    expect(
      (await type(harness, admin, '/config set SCHEDULE_TIMEZONE Mars/Olympus')).answers.join(''),
    ).toMatch(/⚠ .*"Mars\/Olympus" is not a time zone/);
    expect((await type(harness, member, '/config set SCHEDULE_TIMEZONE UTC')).answers.join('')).toMatch(
      /Only server admins/,
    );
    expect(
      (await type(harness, admin, '/config set SCHEDULE_TIMEZONE america/new_york')).answers.join(''),
    ).toMatch(/✅.*America\/New_York/);
    const made = await type(harness, admin, '/schedule every day 9:00 digest');
    expect(made.answers.join('')).toMatch(/first run Fri 31 Oct, 09:00 \(America\/New_York\)/);
    // Another server keeps the process's zone (SCHEDULE_TIMEZONE=Europe/Berlin here).
    const elsewhere = await type(
      harness,
      member,
      '/remind tomorrow 9:00 call Ada',
      'discord:guild-2:channel-9',
    );
    expect(elsewhere.answers.join('')).toMatch(/on Sat 1 Nov, 09:00 \(Europe\/Berlin\)/);
    // --tz still wins over the server's zone.
    const typed = await type(harness, admin, '/remind tomorrow 9:00 stand up --tz Asia/Tokyo');
    expect(typed.answers.join('')).toMatch(/on Sat 1 Nov, 09:00 \(Asia\/Tokyo\)/);

    const nextRun = async () =>
      new Date(
        (await harness.scheduler.listInPlace(channelKey)).find((record) => record.what === 'digest')
          ?.nextRunAtMs ?? 0,
      ).toISOString();
    await harness.clock.advanceTo(Date.parse('2025-10-31T13:00:01Z'));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    await vi.waitFor(async () => expect(await nextRun()).toBe('2025-11-01T13:00:00.000Z'));
    await harness.clock.advanceTo(Date.parse('2025-11-01T13:00:01Z'));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(2));
    // 09:00 EST is 14:00 UTC: the run moves by an hour in UTC and stays at 09:00 in New York.
    await vi.waitFor(async () => expect(await nextRun()).toBe('2025-11-02T14:00:00.000Z'));
    await harness.clock.advanceTo(Date.parse('2025-11-02T13:00:01Z'));
    expect(fake.requests).toHaveLength(2);
    await harness.clock.advanceTo(Date.parse('2025-11-02T14:00:01Z'));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(3));

    // A schedule keeps the zone it was made in when the server's changes later.
    await type(harness, admin, '/config set SCHEDULE_TIMEZONE Europe/London');
    await vi.waitFor(async () => expect(await nextRun()).toBe('2025-11-03T14:00:00.000Z'));
    expect((await type(harness, admin, '/schedules')).answers.join('\n')).toMatch(
      /digest” — every day 9:00, by Ada · next Mon 3 Nov, 09:00 \(America\/New_York\)/,
    );
  });

  it('survives a restart: a run missed within the grace window runs once at start, a later one is skipped with a note', async () => {
    startBot();
    const first = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    await type(first, admin, '/schedule every day 9:00 morning digest');
    await type(first, admin, '/remind tomorrow 10:00 water the plants');
    await first.stop();
    current = undefined;

    // Down from 08:00 to 09:10: the 09:00 run is 10 minutes late, within 15.
    const second = await startProcess(Date.parse('2025-06-02T07:10:00Z'));
    await second.clock.advanceBy(1_000);
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    await second.clock.advanceBy(60 * 60_000);
    expect(fake.requests).toHaveLength(1);
    await second.stop();
    current = undefined;

    // Down from 10:10 on the 2nd to 11:00 on the 3rd: the 09:00 run and the 10:00 reminder are
    // more than 15 minutes late; each is skipped with a note, none runs twice.
    const third = await startProcess(Date.parse('2025-06-03T09:00:00Z'));
    await third.clock.advanceBy(1_000);
    await vi.waitFor(() => expect(third.recorded.shownIn(channelKey)).toHaveLength(1));
    expect(third.recorded.shownIn(channelKey)[0]).toMatch(
      /⏭ Skipped the scheduled “morning digest” due Tue 3 Jun, 09:00 \(Europe\/Berlin\): parley was not running at that time\. Next: Wed 4 Jun, 09:00/,
    );
    await vi.waitFor(() => expect(third.recorded.shownIn('discord:dm:dm-ada')).toHaveLength(1));
    expect(third.recorded.shownIn('discord:dm:dm-ada')[0]).toMatch(/Skipped the reminder “water the plants”/);
    expect(fake.requests).toHaveLength(1);
    // The skipped reminder is done with; the digest waits for Wednesday.
    const left = await third.scheduler.listOfOwner(channelKey, 'ada');
    expect(left.map((record) => record.what)).toEqual(['morning digest']);
  });

  it('posts a reminder in the DM at its time, and then forgets it', async () => {
    startBot();
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    const made = await type(harness, member, '/remind in 2h stretch your legs');
    expect(made.answers.join('')).toMatch(
      /I will remind you “stretch your legs” on Mon 2 Jun, 10:00 \(Europe\/Berlin\)/,
    );
    await harness.clock.advanceBy(2 * 60 * 60_000 + 1_000);
    await vi.waitFor(() =>
      expect(harness.recorded.shownIn('discord:dm:dm-bob')).toEqual(['⏰ Reminder: stretch your legs']),
    );
    expect(fake.requests).toHaveLength(0);
    expect(await harness.scheduler.listOfOwner(channelKey, 'bob')).toEqual([]);
  });

  it('does not send the reminder of a person the server has since blocked, and pauses it', async () => {
    startBot();
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    const carol: Actor = {
      id: '222333444555666777',
      name: 'Carol',
      roleIds: [],
      isAdmin: false,
      context: 'server',
    };
    await type(harness, carol, '/remind in 1h check the oven');
    // The server's rules govern her reminders too, though they arrive in her DM.
    expect(
      (await type(harness, admin, `/config set ACCESS_BLOCK_USER_IDS <@${carol.id}>`)).answers.join(''),
    ).toMatch(/✅/);
    await harness.clock.advanceBy(60 * 60_000 + 1_000);
    const dm = `discord:dm:dm-${carol.id}`;
    await vi.waitFor(() =>
      expect(harness.recorded.shownIn(dm)).toEqual([
        expect.stringMatching(
          /^⏸ Paused the reminder “check the oven” \(in 1h\): Sorry, you cannot use parley here/,
        ),
      ]),
    );
    await vi.waitFor(async () =>
      expect(
        (await harness.scheduler.listOfOwner(channelKey, carol.id)).map((record) => [
          record.state,
          record.lastRun?.status,
        ]),
      ).toEqual([['paused', 'refused']]),
    );
  });

  it('asks the platform who the owner is at each run: a demoted admin’s schedule is refused, paused, and they are told once in their DM', async () => {
    startBot({ ACCESS_COMMAND_ROLE_IDS: 'chat=333444555666777888' });
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    // Admins pass a command's roles: Ada needs none to make it, nor while she stays an admin.
    await type(harness, admin, '/schedule every day 9:00 morning digest');
    harness.recorded.people.set(admin.id, { ...admin, isAdmin: false });
    await harness.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    const dm = `discord:dm:dm-${admin.id}`;
    await vi.waitFor(() =>
      expect(harness.recorded.shownIn(dm)).toEqual([
        expect.stringMatching(
          /^⏸ Paused the schedule “morning digest” \(every day 9:00\): \/chat is only for some roles/,
        ),
      ]),
    );
    const [record] = await harness.scheduler.listInPlace(channelKey);
    expect([record?.state, record?.lastRun?.status]).toEqual(['paused', 'refused']);
    // Nothing in the channel, nothing sent to the model, and no second notice the next day.
    expect(harness.recorded.shownIn(channelKey)).toEqual([]);
    await harness.clock.advanceTo(Date.parse('2025-06-03T07:00:01Z'));
    expect(harness.recorded.shownIn(dm)).toHaveLength(1);
    expect(fake.requests).toHaveLength(0);
  });

  it('keeps who made a schedule, never their roles or admin flag; records kept with them still read', async () => {
    startBot({ ACCESS_BLOCK_ROLE_IDS: '333444555666777999' });
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    await type(harness, admin, '/schedule every day 9:00 morning digest');
    const [made] = await harness.scheduler.listInPlace(channelKey);
    expect(made?.owner).toEqual({ id: admin.id, name: admin.name });
    // A record an older parley wrote, with the owner's roles and admin flag as they were then.
    if (made === undefined) throw new Error('no schedule');
    await store.put({
      ...made,
      owner: { ...made.owner, roleIds: [], isAdmin: true, context: 'server' },
    } as never);
    expect((await store.get(made.id))?.owner).toEqual({ id: admin.id, name: admin.name });
    // The platform now says she holds a blocked role and is no admin: the old flag does not save her.
    harness.recorded.people.set(admin.id, { ...admin, isAdmin: false, roleIds: ['333444555666777999'] });
    await harness.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    await vi.waitFor(async () => expect((await store.get(made.id))?.lastRun?.status).toBe('refused'));
    expect(fake.requests).toHaveLength(0);
  });

  it('pauses the schedule of an owner the platform no longer knows, with 0 gateway requests', async () => {
    startBot();
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    await type(harness, admin, '/schedule every day 9:00 morning digest');
    harness.recorded.people.delete(admin.id);
    await harness.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    await vi.waitFor(() =>
      expect(harness.recorded.shownIn(`discord:dm:dm-${admin.id}`)).toEqual([
        expect.stringMatching(/You are no longer a member of that server\./),
      ]),
    );
    const [record] = await harness.scheduler.listInPlace(channelKey);
    expect([record?.state, record?.pausedReason]).toEqual([
      'paused',
      'You are no longer a member of that server.',
    ]);
    expect(fake.requests).toHaveLength(0);
  });

  it('lets admins schedule in a channel, and holds each place and person to a cap', async () => {
    startBot();
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'), { perPlace: 2, perPerson: 3 });
    expect((await type(harness, member, '/schedule every day 9:00 hi')).answers.join('')).toMatch(
      /Only server admins/,
    );
    await type(harness, admin, '/schedule every day 9:00 one');
    await type(harness, admin, '/schedule every day 10:00 two');
    expect((await type(harness, admin, '/schedule every day 11:00 three')).answers.join('')).toMatch(
      /Not scheduled: this channel has 2 schedules, the most it may have/,
    );
    // Another channel has room, but Ada has her three.
    await type(harness, admin, '/schedule every day 11:00 three', 'discord:guild-1:channel-2');
    expect((await type(harness, admin, '/remind in 1h four')).answers.join('')).toMatch(
      /Not set: you have 3 schedules and reminders, the most one person may have/,
    );
    expect(
      (
        await type(harness, admin, '/schedule every 5 minutes spam', 'discord:guild-1:channel-3')
      ).answers.join(''),
    ).toMatch(/repeats too often/);
  });

  it('never schedules a command that answers privately: a run answers in the channel, for everyone', async () => {
    startBot();
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    for (const command of ['/audit', '/memory', '/usage', '/export', '/forget me']) {
      expect(
        (await type(harness, admin, `/schedule every day 9:00 ${command}`)).answers.join(''),
        command,
      ).toMatch(/cannot be scheduled/);
    }
    expect(await harness.scheduler.listInPlace(channelKey)).toEqual([]);
  });

  it('lists, pauses, resumes and deletes with the buttons; only the owner or an admin may', async () => {
    startBot();
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    const made = await type(harness, admin, '/schedule every day 9:00 digest');
    const pause = made.actions.find((action) => action.label === 'Pause');
    if (pause === undefined) throw new Error('no Pause button');
    const press = async (user: Actor, actionId: string) => {
      const answer = createAnswerResponder();
      await runAction({
        actionId,
        user,
        responder: answer.responder,
        services: harness.services,
        signal: new AbortController().signal,
      });
      return answer;
    };
    expect((await press(member, pause.id)).answers.join('')).toMatch(/Only its owner or a server admin/);
    const paused = await press(admin, pause.id);
    expect(paused.answers.join('')).toMatch(/⏸ paused/);
    await harness.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    expect(fake.requests).toHaveLength(0);
    const listed = await type(harness, admin, '/schedules');
    expect(listed.answers.join('\n')).toMatch(/1 of 20 schedules in this channel/);
    const resume = paused.actions.find((action) => action.label === 'Resume');
    if (resume === undefined) throw new Error('no Resume button');
    expect((await press(admin, resume.id)).answers.join('')).toMatch(/next Tue 3 Jun, 09:00/);
    await harness.clock.advanceTo(Date.parse('2025-06-03T07:00:01Z'));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    const remove = paused.actions.find((action) => action.label === 'Delete');
    if (remove === undefined) throw new Error('no Delete button');
    expect((await press(admin, remove.id)).answers.join('')).toMatch(/Deleted “digest”/);
    await harness.clock.advanceTo(Date.parse('2025-06-04T07:00:01Z'));
    expect(fake.requests).toHaveLength(1);
  });

  it('pauses a schedule whose owner’s budget cannot pay, says why in the channel, and sends nothing', async () => {
    startBot({ BUDGET_TOKENS_USER_DAILY: '1500', REPLY_MAX_TOKENS: '300' });
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    await type(harness, admin, '/schedule every day 9:00 morning digest');
    await type(harness, admin, '/schedule every day 12:00 noon digest');
    fake.setDefault({ usage: { prompt_tokens: 400, completion_tokens: 900 } });
    await harness.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    // 1,300 of Ada's 1,500 tokens are gone: the noon run cannot be paid.
    await harness.clock.advanceTo(Date.parse('2025-06-02T10:00:01Z'));
    await vi.waitFor(() =>
      expect(harness.recorded.shownIn(channelKey).at(-1)).toMatch(
        /⏸ Paused the schedule “noon digest” of Ada: Not sent: your daily token budget/,
      ),
    );
    expect(fake.requests).toHaveLength(1);
    const records = await harness.scheduler.listInPlace(channelKey);
    expect(records.map((record) => [record.what, record.state, record.lastRun?.status])).toEqual([
      ['morning digest', 'active', 'ran'],
      ['noon digest', 'paused', 'unpaid'],
    ]);
    // Paused, it does not come back the next day.
    await harness.clock.advanceTo(Date.parse('2025-06-03T06:00:00Z'));
    await harness.clock.advanceTo(Date.parse('2025-06-03T10:00:01Z'));
    expect(harness.recorded.shownIn(channelKey).filter((line) => line.includes('noon digest'))).toHaveLength(
      1,
    );
  });

  it('says a failed run failed and tries it again with backoff', async () => {
    startBot();
    const harness = await startProcess(Date.parse('2025-06-02T06:00:00Z'));
    await type(harness, admin, '/schedule every day 9:00 digest');
    fake.enqueue({ error: { status: 500 } });
    await harness.clock.advanceTo(Date.parse('2025-06-02T07:00:01Z'));
    await vi.waitFor(() =>
      expect(harness.recorded.shownIn(channelKey).at(-1)).toMatch(/try “digest” again shortly \(try 2\)/),
    );
    expect(fake.requests).toHaveLength(1);
    await harness.clock.advanceBy(59_000);
    expect(fake.requests).toHaveLength(1);
    await harness.clock.advanceBy(2_000);
    await vi.waitFor(() => expect(fake.requests).toHaveLength(2));
    const [record] = await harness.scheduler.listInPlace(channelKey);
    await vi.waitFor(async () =>
      expect((await harness.scheduler.get(record?.id ?? ''))?.lastRun?.status).toBe('ran'),
    );
  });
});

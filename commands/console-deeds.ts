import type { ConsoleDeeds } from '../src/console/console-deeds.ts';
import { conversationKeyOf, placeOfConversation } from '../src/conversation/turn.ts';
import { createActivityWindow } from '../src/operations/activity-rates.ts';
import type { Scheduler } from '../src/scheduling/scheduler.ts';
import { formatCost } from '../src/spending/prices.ts';
import { isActingTool } from '../src/tools/tool.ts';
import { applyConfigChange } from './config-changes.ts';
import { toCsv } from './csv.ts';
import type { CommandServices } from './define-command.ts';
import { personCard, topCard } from './definitions/usage.ts';
import { forgetMemoryNotes } from './forget-memory-notes.ts';
import { forgetPersonData } from './forget-person-data.ts';
import { mayChangeSchedule } from './scheduling/schedule-text.ts';

/** Runs a schedule once now, as its owner: undefined when it ran, else why not. */
async function ranNow(scheduler: Scheduler, id: string): Promise<string | undefined> {
  const outcome = await scheduler.runNow(id);
  if ('problem' in outcome) return `Not run: ${outcome.problem}.`;
  return outcome.status === 'ran' ? undefined : `Not run (${outcome.status}): ${outcome.reason}`;
}

/** Resumes a schedule: undefined when done, else why not (its limits, or it is gone). */
async function resumed(scheduler: Scheduler, id: string): Promise<string | undefined> {
  const result = await scheduler.resume(id);
  if (result === undefined) return 'That schedule no longer exists.';
  return 'problem' in result ? `Not resumed: ${result.problem}.` : undefined;
}

/**
 * The console's deeds on the commands' own code: the person built by their platform now (as a
 * scheduled run builds its owner), `/config`'s change, `/usage`'s cards, and its figures as CSV
 * through the CSV writer `/extract` uses.
 */
export function createConsoleDeeds(services: CommandServices): ConsoleDeeds {
  const activity = createActivityWindow();
  return {
    async actorNow({ platform, workspace, userId }) {
      const places = services.platformPlaces.of(platform);
      if (places === undefined) return undefined;
      const now = await places.actorNow({
        userId,
        // The server as a whole: no channel to be judged in, and nothing is posted.
        conversationKey: conversationKeyOf({ platform, workspace, channel: '' }),
        postsThere: false,
        atMs: services.now().getTime(),
      });
      return now.isPresent ? now.actor : undefined;
    },
    isPresentIn({ platform, workspace }) {
      const places = services.platformPlaces.of(platform);
      return places !== undefined && (places.isPresentIn?.(workspace) ?? true);
    },
    changeSetting: ({ actor, conversationKey, name, scope, text }) =>
      applyConfigChange({ services, user: actor, conversationKey, change: { name, scope, text } }),
    usageCard: ({ actor, conversationKey }) =>
      personCard({ services, conversationKey, userId: actor.id, roleIds: actor.roleIds, isSelf: true }),
    topSpendCard: ({ conversationKey }) => topCard({ services, conversationKey }),
    schedulesAt: async (place) => (await services.scheduling?.scheduler.listInWorkspace(place)) ?? [],
    async changeSchedule({ actor, place, scheduleId, change }) {
      const scheduler = services.scheduling?.scheduler;
      const record = await scheduler?.get(scheduleId);
      const where = record === undefined ? undefined : placeOfConversation(record.conversationKey);
      // Another server's schedule is as unknown here as one that does not exist.
      if (
        scheduler === undefined ||
        record === undefined ||
        where?.platform !== place.platform ||
        where.workspace !== place.workspace
      ) {
        return { isChanged: false, text: 'That schedule no longer exists.' };
      }
      if (!mayChangeSchedule(actor, record)) {
        return { isChanged: false, text: 'Only its owner or a server admin can change this schedule.' };
      }
      const outcome =
        change === 'run'
          ? await ranNow(scheduler, record.id)
          : change === 'pause'
            ? (await scheduler.pause(record.id)) === undefined
              ? 'That schedule no longer exists.'
              : undefined
            : change === 'resume'
              ? await resumed(scheduler, record.id)
              : (await scheduler.remove(record.id))
                ? undefined
                : 'That schedule no longer exists.';
      const done = { pause: 'paused', resume: 'resumed', delete: 'deleted', run: 'ran' }[change];
      await services.audit.record({
        platform: where.platform,
        workspace: where.workspace,
        channel: where.channel,
        actor: { id: actor.id, name: actor.name },
        onBehalfOf: { id: record.owner.id, name: record.owner.name },
        kind: 'schedule-changed',
        what: `${done} schedule ${record.id} (${record.whenText}) in the console${outcome === undefined ? '' : `: ${outcome}`}`,
        result: outcome === undefined ? 'done' : 'failed',
      });
      return outcome === undefined
        ? { isChanged: true, text: `Schedule ${record.id} ${done}.` }
        : { isChanged: false, text: outcome };
    },
    notesAt: (request) => services.memory.notesOf(request),
    forgetNotes: ({ actor, conversationKey, scope, noteId }) =>
      forgetMemoryNotes({
        services,
        user: actor,
        conversationKey,
        scope,
        ownerId: scope === 'person' ? actor.id : undefined,
        noteId,
        via: 'the console',
      }),
    async remindersOf({ actor, conversationKey }) {
      const records = (await services.scheduling?.scheduler.listOfOwner(conversationKey, actor.id)) ?? [];
      return records.filter((record) => record.kind === 'reminder');
    },
    async overviewOf({ actor, place }) {
      const conversationKey = conversationKeyOf({ ...place, channel: '' });
      const [budgets, schedules, rates] = await Promise.all([
        services.spending.standings({ userId: actor.id, roleIds: actor.roleIds, conversationKey }),
        services.scheduling?.scheduler.listInWorkspace(place) ?? Promise.resolve([]),
        activity.rates(),
      ]);
      const counts = new Map<string, number>();
      for (const tool of services.toolbox.all()) counts.set(tool.source, (counts.get(tool.source) ?? 0) + 1);
      const tools = [
        ...[...counts].map(([source, toolCount]) => ({ source, toolCount, isUp: true })),
        ...services.toolbox
          .outages()
          .map((outage) => ({ source: outage.source, toolCount: outage.lastTools.length, isUp: false })),
      ];
      return {
        repliesInFlight: services.activeReplies.inFlight(),
        activity: rates,
        budgets,
        tools,
        nextRuns: schedules.filter((record) => record.state === 'active').slice(0, 5),
      };
    },
    async roleSpend(place) {
      const settings = await services.places.settingsAt({ ...place, channel: '' });
      const roleIds = [
        ...new Set([
          ...Object.keys(settings.roleBudgetLimits.BUDGET_ROLE_DAILY ?? {}),
          ...Object.keys(settings.roleBudgetLimits.BUDGET_ROLE_MONTHLY ?? {}),
        ]),
      ];
      const spent = await services.usage.roleSpend({ ...place, roleIds, at: services.now() });
      return [...spent].sort((first, second) => second.monthNanos - first.monthNanos);
    },
    placeHistory: (request) => services.usage.placeHistory({ ...request, at: services.now() }),
    placeSpend: (place) => services.usage.placeReport({ ...place, at: services.now() }),
    async exportMine({ actor, conversationKey }) {
      const place = placeOfConversation(conversationKey);
      const exported = await services.personData.export({
        person: { platform: place.platform, userId: actor.id },
      });
      const text = `${JSON.stringify(exported, null, 2)}\n`;
      await services.audit.record({
        platform: place.platform,
        workspace: place.workspace,
        channel: place.channel,
        actor: { id: actor.id, name: actor.name },
        kind: 'export',
        what: '/export of their own data, downloaded from the console',
        result: 'done',
        details: { bytes: Buffer.byteLength(text) },
      });
      return text;
    },
    forgetMe: ({ actor, conversationKey }) =>
      forgetPersonData({
        services,
        user: actor,
        conversationKey,
        subject: {
          platform: placeOfConversation(conversationKey).platform,
          userId: actor.id,
          workspace: undefined,
        },
      }),
    toolsOverview: () => ({
      tools: services.toolbox.all().map((tool) => ({
        name: tool.name,
        title: tool.title,
        source: tool.source,
        asksFirst: isActingTool(tool),
        priceNanos: tool.priceNanos,
      })),
      down: services.toolbox
        .outages()
        .map((outage) => ({ source: outage.source, toolNames: outage.lastTools.map((tool) => tool.name) })),
      pendingApprovals: services.toolApprovals.pendingCount(),
    }),
    async topSpendCsv({ conversationKey }) {
      const place = placeOfConversation(conversationKey);
      const at = services.now();
      const rows: string[][] = [['period', 'kind', 'rank', 'id', 'cost']];
      const totals = await services.usage.placeReport({ ...place, at });
      for (const [period, spent] of [
        ['day', totals.today],
        ['month', totals.month],
      ] as const) {
        rows.push([period, 'server', '', place.workspace, formatCost(spent.costNanos)]);
        const byCalls = Object.entries(spent.toolCalls).sort(
          ([, first], [, second]) => second.calls - first.calls,
        );
        byCalls.forEach(([tool, counts], index) => {
          rows.push([
            period,
            'tool calls',
            String(index + 1),
            tool,
            `${counts.calls} (${counts.errors} failed)`,
          ]);
        });
      }
      for (const period of ['day', 'month'] as const) {
        for (const kind of ['users', 'channels'] as const) {
          const ranked = await services.usage.top({ ...place, kind, period, at, count: 25 });
          ranked.forEach((entry, index) => {
            rows.push([period, kind, String(index + 1), entry.id, formatCost(entry.costNanos)]);
          });
        }
      }
      return toCsv(rows);
    },
  };
}

import type { Keyv } from 'keyv';
import { type ConversationKey, conversationKeyOf, placeOfConversation } from '../conversation/turn.ts';
import type { Logger } from '../log.ts';
import type { MemoryBook } from '../memory/memory-book.ts';
import type { Scheduler } from '../scheduling/scheduler.ts';
import { listConversations } from './history-retention.ts';
import type { KeptDataRegistry, SweepContext } from './kept-data.ts';
import type { PeopleIndex } from './people-index.ts';
import type { PersonData } from './person-data.ts';

/** What a workspace's removal took, by kind (`history` counts turns, `people` persons forgotten). */
export type WorkspaceForgetReport = Readonly<Record<string, number>>;

/**
 * Everything parley keeps of one server or workspace, removed at once: when a Slack workspace
 * uninstalls parley with SLACK_UNINSTALL_DELETES=on. Made of the paths that already remove data:
 * /forget of every person who wrote there (their turns, notes, schedules, ratings, counters), then the
 * retention sweep of every kind with the workspace's conversations past their cutoff (the rest of its
 * history, summaries, journal, index), then what neither reaches: the workspace's shared notes,
 * its conversations' /model and /system, its /config overrides and its remaining schedules. The audit
 * trail stays: it records the removal, and goes by AUDIT_RETENTION_DAYS.
 */
export interface WorkspaceData {
  forget(request: {
    platform: string;
    workspace: string;
    /** The scheduler this process's commands make schedules on; default the one given at creation. */
    scheduler?: Scheduler | undefined;
  }): Promise<WorkspaceForgetReport>;
}

export function createWorkspaceData({
  registry,
  people,
  personData,
  historyKeyv,
  settingsKeyv,
  overridesKeyv,
  memory,
  scheduler: defaultScheduler,
  now = () => Date.now(),
  logger,
}: {
  registry: KeptDataRegistry;
  people: PeopleIndex;
  personData: PersonData;
  historyKeyv: Keyv;
  settingsKeyv: Keyv;
  overridesKeyv: Keyv;
  memory: MemoryBook;
  scheduler: Scheduler | undefined;
  now?: () => number;
  logger: Logger;
}): WorkspaceData {
  return {
    async forget({ platform, workspace, scheduler = defaultScheduler }) {
      const report: Record<string, number> = {};
      const add = (name: string, count: number) => {
        report[name] = (report[name] ?? 0) + count;
      };
      const isHere = (conversationKey: ConversationKey) => {
        const place = placeOfConversation(conversationKey);
        return place.platform === platform && place.workspace === workspace;
      };
      // Read before anything goes: the channels (for their schedules) and the people who wrote there.
      const conversations = (await listConversations(historyKeyv)).filter(isHere);
      const persons = await people.peopleIn(platform, workspace);
      for (const person of persons) {
        const forgotten = await personData.forget({ person, workspace });
        for (const [name, count] of Object.entries(forgotten)) add(name, count);
      }
      add('people', persons.length);
      const context: SweepContext = {
        nowMs: now(),
        // Everything of the workspace's conversations is older than a cutoff in the future.
        cutoffMsFor: async (conversationKey) =>
          isHere(conversationKey) ? Number.POSITIVE_INFINITY : undefined,
        sharedCutoffMs: undefined,
      };
      for (const kind of registry.list()) {
        if (kind.name === 'audit' || kind.sweep === undefined) continue;
        add(kind.name, await kind.sweep(context));
      }
      add('settings', await deleteWhere(settingsKeyv, (key) => isHere(key)));
      // The overrides' keys (administration/override-store.ts): `server:<platform>:<workspace>` and
      // `channel:<platform>:<workspace>:<channel>`.
      add(
        'overrides',
        await deleteWhere(
          overridesKeyv,
          (key) =>
            key === `server:${platform}:${workspace}` || key.startsWith(`channel:${platform}:${workspace}:`),
        ),
      );
      add('memory', await forgetSharedNotes({ memory, platform, workspace }));
      if (scheduler !== undefined) {
        const channels = new Set(
          conversations.map((key) => {
            const place = placeOfConversation(key);
            return conversationKeyOf({ platform, workspace, channel: place.channel });
          }),
        );
        const records = [
          ...(await Promise.all([...channels].map((channelKey) => scheduler.listInPlace(channelKey)))).flat(),
          // A channel parley never held a conversation in can still hold a schedule (made by /schedule
          // there, or in another channel for it): every channel schedule of the workspace.
          ...(await scheduler.listInWorkspace({ platform, workspace })),
        ];
        const ids = new Set(records.map((record) => record.id));
        for (const id of ids) {
          if (await scheduler.remove(id)) add('schedules', 1);
        }
      }
      logger.info({ platform, workspace, removed: report }, 'removed everything kept of a workspace');
      return report;
    },
  };
}

async function deleteWhere(keyv: Keyv, isDoomed: (key: string) => boolean): Promise<number> {
  const doomed: string[] = [];
  for await (const [key] of keyv.iterator?.(undefined) ?? []) {
    if (typeof key === 'string' && isDoomed(key)) doomed.push(key);
  }
  if (doomed.length > 0) await keyv.deleteMany(doomed);
  return doomed.length;
}

/** The workspace's shared notes (place memory); each person's went with their /forget. */
async function forgetSharedNotes({
  memory,
  platform,
  workspace,
}: {
  memory: MemoryBook;
  platform: string;
  workspace: string;
}): Promise<number> {
  return memory.forget({
    // The notes are the place's; the removal is parley's own, on the platform's word.
    actor: { id: platform, name: platform, roleIds: [], isAdmin: true, context: 'server' },
    conversationKey: conversationKeyOf({ platform, workspace, channel: 'memory' }),
    scope: 'place',
    id: undefined,
  });
}

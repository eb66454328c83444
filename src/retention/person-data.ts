import type { HistoryStore } from '../conversation/history-store.ts';
import type { Logger } from '../log.ts';
import { redactSecretsInValue } from '../secrets/redact-in-value.ts';
import { forgetTurns, type RunInConversation } from './history-retention.ts';
import type { KeptDataRegistry, Person, PersonRequest } from './kept-data.ts';
import type { PeopleIndex } from './people-index.ts';

/** What /forget removed, by kind of kept data (`history` counts turns). */
export type ForgetReport = Readonly<Record<string, number>>;

/** Everything parley holds about a person, as the JSON /export sends them (secrets redacted). */
export interface PersonExport {
  readonly person: Person;
  readonly workspace: string | undefined;
  readonly exportedAt: string;
  /** By kind of kept data: history, feedback, usage, memory… */
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * /forget and /export: everything parley holds about one person, found through the people index
 * (history is per conversation) and every registered kind of kept data.
 */
export interface PersonData {
  forget(request: { person: Person; workspace?: string }): Promise<ForgetReport>;
  export(request: { person: Person; workspace?: string }): Promise<PersonExport>;
}

export function createPersonData({
  registry,
  index,
  history,
  runInConversation,
  now = () => Date.now(),
  logger,
}: {
  registry: KeptDataRegistry;
  index: PeopleIndex;
  history: HistoryStore;
  runInConversation: RunInConversation;
  now?: () => number;
  logger: Logger;
}): PersonData {
  const requestOf = async ({
    person,
    workspace,
  }: {
    person: Person;
    workspace?: string;
  }): Promise<PersonRequest> => ({
    person,
    workspace,
    conversationKeys: await index.conversationsOf(person, workspace),
    nowMs: now(),
  });
  return {
    async forget(asked) {
      const request = await requestOf(asked);
      const forgottenTurns = await forgetTurns({ history, runInConversation, request });
      const report: Record<string, number> = { history: forgottenTurns.length };
      for (const kept of registry.list()) {
        if (!kept.forget) continue;
        // Every kind is tried: one that fails is named in the log and the report, the rest still go.
        try {
          report[kept.name] = await kept.forget({
            ...request,
            forgottenTurns,
          });
        } catch (error) {
          logger.error({ err: error, kept: kept.name }, 'forget: could not remove one kind of data');
          report[kept.name] = -1;
        }
      }
      await index.forget(asked.person, asked.workspace);
      logger.info(
        { platform: asked.person.platform, workspace: asked.workspace, removed: report },
        'forgot a person',
      );
      return report;
    },
    async export(asked) {
      const request = await requestOf(asked);
      const data: Record<string, unknown> = {};
      for (const kept of registry.list()) {
        if (!kept.export) continue;
        const exported = await kept.export(request);
        // What looks like a password, token or key is redacted in the file, as in the log: the
        // person who pasted it has it, and an admin's /export --user must not hand it on.
        if (exported !== undefined) data[kept.name] = redactSecretsInValue({ value: exported });
      }
      return {
        person: asked.person,
        workspace: asked.workspace,
        exportedAt: new Date(request.nowMs).toISOString(),
        data,
      };
    },
  };
}

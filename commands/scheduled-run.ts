import type { Actor } from '../src/access/actor.ts';
import { placeOfConversation } from '../src/conversation/turn.ts';
import { estimatePromptTokens } from '../src/gateway/token-estimate.ts';
import type { ScheduleRecord } from '../src/scheduling/schedule-record.ts';
import { describeInstant, nextRunAfter } from '../src/scheduling/schedule-timing.ts';
import type { RunOutcome, ScheduleRunner } from '../src/scheduling/scheduler.ts';
import { traceScheduledRun } from '../src/tracing/turn-spans.ts';
import { findCommand } from './all-commands.ts';
import { replyWithActions } from './chat-reply.ts';
import type { CommandResponder, CommandServices } from './define-command.ts';
import { parseCommandText } from './parse-command-text.ts';
import { runCommand } from './run-command.ts';
import type { ScheduledPlacesRegistry } from './scheduled-places.ts';

/** The longest a run's budget check holds its estimate: it is released before the run's own hold. */
const checkHoldMs = 60_000;

/** The Actor of a schedule's owner, from what was kept when they made it. */
export function actorOfSchedule(record: ScheduleRecord): Actor {
  return { ...record.owner, roleIds: [...record.owner.roleIds] };
}

/** A command to run (`/summarize --messages 200`), or undefined for a prompt. */
export function commandOfText(text: string): { name: string; rest: string } | undefined {
  const match = /^\/([a-z][\w-]*)\s*([\s\S]*)$/i.exec(text.trim());
  return match?.[1] === undefined ? undefined : { name: match[1].toLowerCase(), rest: match[2] ?? '' };
}

/**
 * Does each run of a schedule as an entry point of its own: the owner's Actor is built from the
 * record, `authorize` decides as for a message, and `spending.admit` holds the run's worst case on
 * the owner's budgets before anything is sent (then gives the hold up to the run's own, which the
 * engine or command takes the same way). A budget that cannot pay is said in the place and pauses
 * the schedule; access refused pauses it too; a failed run says so and is tried again.
 */
export function createScheduledRunner({
  services,
  places,
  replyMaxTokens,
}: {
  services: CommandServices;
  places: ScheduledPlacesRegistry;
  replyMaxTokens: number;
}): ScheduleRunner {
  const logger = services.logger.child({ component: 'scheduled-runs' });

  /** The place's responder, once it is the run's turn there; `release` gives the turn back. */
  const reach = async (
    record: ScheduleRecord,
  ): Promise<
    { conversationKey: string; responder: CommandResponder; release: () => void } | { problem: string }
  > => {
    const platform = placeOfConversation(record.conversationKey).platform;
    const found = places.of(platform);
    if (found === undefined) return { problem: `${platform} is not running in this process` };
    const target =
      record.kind === 'reminder'
        ? await found.directMessageWith(record.owner.id, record.conversationKey)
        : await found
            .responderIn(record.conversationKey)
            .then((responder) =>
              responder === undefined ? undefined : { conversationKey: record.conversationKey, responder },
            );
    if (target === undefined) return { problem: 'the place could not be reached' };
    const release = (await found.takeTurn?.(target.conversationKey)) ?? (() => {});
    return { ...target, release };
  };

  const say = (responder: CommandResponder, text: string) =>
    responder.surface.post(text).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not post a scheduling note');
    });

  const runOnce: ScheduleRunner['run'] = async ({ record, dueAtMs, attempt, isLastAttempt }) => {
    const target = await reach(record);
    if ('problem' in target) {
      logger.warn(
        { scheduleId: record.id, problem: target.problem },
        'a scheduled run could not reach its place',
      );
      return { status: 'failed', reason: target.problem };
    }
    try {
      return await runInPlace({ record, dueAtMs, attempt, isLastAttempt, ...target });
    } finally {
      target.release();
    }
  };

  return {
    // Each run is the root of a trace of its own: its timer may have been set inside a command's span.
    run: (request) =>
      traceScheduledRun({ kind: request.record.kind, conversationKey: request.record.conversationKey }, () =>
        runOnce(request),
      ),
    async tellSkipped({ record, dueAtMs, reason }) {
      const target = await reach(record);
      if ('problem' in target) return;
      try {
        const next = nextRunAfter({
          timing: record.timing,
          timeZone: record.timeZone,
          afterMs: services.now().getTime(),
        });
        const what =
          record.kind === 'reminder' ? `the reminder “${record.what}”` : `the scheduled “${record.what}”`;
        await say(
          target.responder,
          `⏭ Skipped ${what} due ${describeInstant(dueAtMs, record.timeZone)}: ${reason}.${next === undefined ? '' : ` Next: ${describeInstant(next, record.timeZone)}.`}`,
        );
      } finally {
        target.release();
      }
    },
  };

  async function runInPlace({
    record,
    dueAtMs,
    attempt,
    isLastAttempt,
    conversationKey,
    responder,
  }: {
    record: ScheduleRecord;
    dueAtMs: number;
    attempt: number;
    isLastAttempt: boolean;
    conversationKey: string;
    responder: CommandResponder;
  }): Promise<RunOutcome> {
    const actor = actorOfSchedule(record);
    const command = record.kind === 'place' ? commandOfText(record.what) : undefined;
    // Decided where the schedule was made: a reminder answered in a DM is still that server's to allow.
    const verdict = await services.access.authorize({
      actor,
      conversationKey: record.conversationKey,
      capability: {
        kind: 'command',
        name: record.kind === 'reminder' ? 'remind' : (command?.name ?? 'chat'),
      },
    });
    if (!verdict.isAllowed) {
      await say(responder, `⏸ Paused the schedule “${record.what}”: ${verdict.text}`);
      return { status: 'refused', reason: verdict.text };
    }
    if (record.kind === 'reminder') {
      await responder.surface.post(`⏰ Reminder: ${record.what}`);
      return { status: 'ran' };
    }
    const admission = await services.spending.admit({
      userId: actor.id,
      roleIds: actor.roleIds,
      conversationKey,
      model: services.models.chat,
      work: {
        kind: 'tokens',
        promptTokens: estimatePromptTokens({ messages: [{ role: 'user', content: record.what }] }),
        maxCompletionTokens: replyMaxTokens,
      },
      mayFallBack: true,
      maxDurationMs: checkHoldMs,
    });
    if (!admission.isAdmitted) {
      if (admission.reason === 'budget') {
        await say(
          responder,
          `⏸ Paused the schedule “${record.what}” of ${record.owner.name}: ${admission.message} Resume it with /schedules.`,
        );
        return { status: 'unpaid', reason: admission.message };
      }
      await say(responder, `⚠ The scheduled “${record.what}” could not run now: ${admission.message}`);
      return { status: 'failed', reason: admission.message };
    }
    // The run takes its own hold as it sends (engine, command): this one only proved it can be paid.
    await admission.hold.settle();
    await say(responder, `🕘 ${record.what} — scheduled by ${record.owner.name} (${record.whenText})`);
    const failed = command
      ? await runScheduledCommand({ services, record, command, conversationKey, actor, responder, places })
      : await replyWithActions({
          services,
          surface: responder.surface,
          isAnswerOwed: true,
          turn: {
            conversationKey,
            author: { id: actor.id, name: actor.name },
            actor,
            text: record.what,
            images: [],
          },
        }).then((outcome) => (outcome.status === 'failed' ? 'the model did not answer' : undefined));
    if (failed === undefined) return { status: 'ran' };
    if (!isLastAttempt)
      await say(responder, `↻ I will try “${record.what}” again shortly (try ${attempt + 1}).`);
    else
      await say(
        responder,
        `⚠ “${record.what}” failed ${attempt} times; I gave up on the run due ${describeInstant(dueAtMs, record.timeZone)}.`,
      );
    return { status: 'failed', reason: failed };
  }
}

async function runScheduledCommand({
  services,
  record,
  command: { name, rest },
  conversationKey,
  actor,
  responder,
  places,
}: {
  services: CommandServices;
  record: ScheduleRecord;
  command: { name: string; rest: string };
  conversationKey: string;
  actor: Actor;
  responder: CommandResponder;
  places: ScheduledPlacesRegistry;
}): Promise<string | undefined> {
  const command = findCommand(name);
  if (command === undefined) return `there is no command /${name}`;
  const platform = places.of(placeOfConversation(record.conversationKey).platform);
  const status = await runCommand({
    command,
    rawOptions: parseCommandText(command.options, rest),
    conversationKey,
    user: actor,
    responder,
    services,
    readRecentMessages: (limit) =>
      platform?.readRecentMessages(conversationKey, limit) ?? Promise.resolve([]),
  });
  return status === 'failed' ? `/${name} failed` : undefined;
}

/**
 * Starts running schedules once the platforms are connected (their places registered); missed runs
 * come due at once. Does nothing where the process runs no scheduler.
 */
export async function startScheduledRuns({
  services,
  replyMaxTokens,
}: {
  services: CommandServices;
  replyMaxTokens: number;
}): Promise<void> {
  const scheduling = services.scheduling;
  if (scheduling === undefined) return;
  await scheduling.scheduler.start(
    createScheduledRunner({ services, places: scheduling.places, replyMaxTokens }),
  );
}

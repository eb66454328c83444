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
import { ownerStanding, tellOwnerPaused } from './schedule-owner-now.ts';
import type { ScheduledPlaces, ScheduledPlacesRegistry } from './scheduled-places.ts';
import { commandOfText } from './scheduling/command-of-text.ts';
import { isSchedulable } from './scheduling/schedulable-commands.ts';

/** The longest a run's budget check holds its estimate: it is released before the run's own hold. */
const checkHoldMs = 60_000;

/**
 * Does each run of a schedule as an entry point of its own. The record keeps who and where, never
 * what they were allowed: the platform builds the owner's Actor as they are now (`actorNow`: roles,
 * admin, still a member, not timed out, may post there), `authorize` decides as for a message, and
 * `spending.admit` holds the run's worst case on the owner's budgets before anything is sent (then
 * gives the hold up to the run's own, which the engine or command takes the same way). Refused:
 * the schedule pauses and its owner is told once, in their DM where the platform allows; a budget
 * that cannot pay is said in the place and pauses it too; a failed run says so and is tried again.
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

  /** A run from the owner's standing to its end; every way it can end returns its outcome. */
  const attempt = async ({
    record,
    dueAtMs,
    attempt: attemptNumber,
    isLastAttempt,
  }: Parameters<ScheduleRunner['run']>[0]): Promise<RunOutcome> => {
    const platformName = placeOfConversation(record.conversationKey).platform;
    const platform = places.of(platformName);
    if (platform === undefined)
      return { status: 'failed', reason: `${platformName} is not running in this process` };
    const capabilityName =
      record.kind === 'reminder' ? 'remind' : (commandOfText(record.what)?.name ?? 'chat');
    const standing = await ownerStanding({ services, record, platform, capabilityName });
    if (!standing.isAllowed) {
      await tellOwnerPaused({ record, platform, text: standing.text, logger });
      return { status: 'refused', reason: standing.text };
    }
    const target = await reach(record);
    if ('problem' in target) return { status: 'failed', reason: target.problem };
    try {
      return await runInPlace({
        record,
        dueAtMs,
        attempt: attemptNumber,
        isLastAttempt,
        actor: standing.actor,
        platform,
        ...target,
      });
    } finally {
      target.release();
    }
  };

  /** A run and its record: the audit trail and the log say how every run ended. */
  const runAndRecord = async (request: Parameters<ScheduleRunner['run']>[0]): Promise<RunOutcome> => {
    const outcome = await attempt(request).catch((error: unknown): RunOutcome => {
      logger.error({ err: error, scheduleId: request.record.id }, 'a scheduled run threw');
      return { status: 'failed', reason: 'something went wrong' };
    });
    // The one place a run's outcome is known (ran, refused, unpaid, failed), before the scheduler
    // pauses or retries on it.
    await recordRunInAudit({ services, record: request.record, outcome });
    logger.info(
      {
        scheduleId: request.record.id,
        ownerId: request.record.owner.id,
        conversationKey: request.record.conversationKey,
        attempt: request.attempt,
        status: outcome.status,
        ...(outcome.status === 'ran' ? {} : { reason: outcome.reason }),
      },
      'scheduled run outcome',
    );
    return outcome;
  };

  return {
    // Each run is the root of a trace of its own: its timer may have been set inside a command's span.
    run: (request) =>
      traceScheduledRun({ kind: request.record.kind, conversationKey: request.record.conversationKey }, () =>
        runAndRecord(request),
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
    actor,
    platform,
  }: {
    record: ScheduleRecord;
    dueAtMs: number;
    attempt: number;
    isLastAttempt: boolean;
    conversationKey: string;
    responder: CommandResponder;
    /** The owner as the platform showed them for this run, allowed by the gate. */
    actor: Actor;
    platform: ScheduledPlaces;
  }): Promise<RunOutcome> {
    const command = record.kind === 'place' ? commandOfText(record.what) : undefined;
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
    // Making a channel schedule is a power (SCHEDULERS): one its owner has lost is not used in their name.
    if (services.scheduling?.scheduler.mayScheduleInPlace(actor) === false) {
      const text =
        'Only server admins (and the roles the owner allows) can schedule prompts in a channel, and you no longer may.';
      await tellOwnerPaused({ record, platform, text, logger });
      return { status: 'refused', reason: text };
    }
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
  // A schedule made before a rule changed: a command that answers privately is never run in public.
  if (!isSchedulable(command)) return `/${name} cannot be scheduled`;
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

/**
 * A run in the audit trail: parley acted, on the owner's authority as it stood at the run; a refused
 * or unpaid run is the schedule's pause.
 */
function recordRunInAudit({
  services,
  record,
  outcome,
}: {
  services: CommandServices;
  record: ScheduleRecord;
  outcome: RunOutcome;
}): Promise<void> {
  const place = placeOfConversation(record.conversationKey);
  const isPause = outcome.status === 'refused' || outcome.status === 'unpaid';
  // By id: what the owner asked for is theirs, and /forget takes it away with the schedule.
  const what = `${record.kind === 'reminder' ? 'reminder' : 'schedule'} ${record.id} (${record.whenText})`;
  return services.audit.record({
    platform: place.platform,
    workspace: place.workspace,
    channel: place.channel,
    actor: { id: 'parley', name: 'parley (scheduled run)' },
    onBehalfOf: { id: record.owner.id, name: record.owner.name },
    kind: isPause ? 'schedule-paused' : 'schedule-run',
    what:
      outcome.status === 'ran'
        ? `ran ${what}`
        : `${isPause ? 'paused' : 'failed'} ${what}: ${outcome.reason}`,
    result: outcome.status === 'ran' ? 'done' : isPause ? 'refused' : 'failed',
    details: { scheduleId: record.id },
  });
}

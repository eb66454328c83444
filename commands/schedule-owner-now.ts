import type { Actor } from '../src/access/actor.ts';
import type { Logger } from '../src/log.ts';
import type { ScheduleRecord } from '../src/scheduling/schedule-record.ts';
import type { CommandServices } from './define-command.ts';
import type { AbsenceReason, ScheduledPlaces } from './scheduled-places.ts';

/** Why the platform says the owner cannot act there now, in the owner's own words. */
const absenceText: Record<AbsenceReason, string> = {
  left: 'You are no longer a member of that server.',
  deactivated: 'Your account there is deactivated.',
  'timed-out': 'You are timed out in that server.',
  'cannot-post-here': 'You can no longer post in that channel.',
  'parley-cannot-post-here': 'parley can no longer post in that channel.',
};

/** The owner as the platform shows them now and as access judges them: allowed, or why not. */
export type OwnerStanding =
  | { readonly isAllowed: true; readonly actor: Actor }
  | { readonly isAllowed: false; readonly text: string };

/**
 * A schedule's owner at the time of a run: the platform builds their Actor as they are now (never
 * from the record, which keeps only who and where), then `authorize` decides where the schedule
 * was made — a reminder answered in a DM is still that server's to allow. Rejects when the
 * platform cannot answer, so the run is tried again rather than refused or let through.
 */
export async function ownerStanding({
  services,
  record,
  platform,
  capabilityName,
}: {
  services: Pick<CommandServices, 'access' | 'now'>;
  record: ScheduleRecord;
  platform: ScheduledPlaces;
  /** The command the run amounts to: `remind`, the scheduled command, or `chat` for a prompt. */
  capabilityName: string;
}): Promise<OwnerStanding> {
  const now = await platform.actorNow({
    userId: record.owner.id,
    conversationKey: record.conversationKey,
    postsThere: record.kind === 'place',
    atMs: services.now().getTime(),
  });
  if (!now.isPresent) return { isAllowed: false, text: absenceText[now.reason] };
  const verdict = await services.access.authorize({
    actor: now.actor,
    conversationKey: record.conversationKey,
    capability: { kind: 'command', name: capabilityName },
  });
  return verdict.isAllowed ? { isAllowed: true, actor: now.actor } : { isAllowed: false, text: verdict.text };
}

/**
 * Tells the owner once why their schedule paused (it stays paused, so it is not said again): in
 * their DM with parley, so a refusal is not a public post every day. A channel schedule whose owner
 * cannot be written to (they left every server parley shares with them) is noted in its channel.
 */
export async function tellOwnerPaused({
  record,
  platform,
  text,
  logger,
}: {
  record: ScheduleRecord;
  platform: ScheduledPlaces;
  text: string;
  logger: Logger;
}): Promise<void> {
  const direct = await platform
    .directMessageWith(record.owner.id, record.conversationKey)
    .catch((error: unknown) => {
      logger.info({ err: error, scheduleId: record.id }, 'could not open the owner’s DM for a pause note');
      return undefined;
    });
  const inPlace =
    direct === undefined && record.kind === 'place'
      ? await platform.responderIn(record.conversationKey)
      : undefined;
  const target =
    direct ??
    (inPlace === undefined ? undefined : { conversationKey: record.conversationKey, responder: inPlace });
  if (target === undefined) {
    logger.warn({ scheduleId: record.id }, 'nobody could be told that a schedule paused');
    return;
  }
  const what = record.kind === 'reminder' ? 'the reminder' : 'the schedule';
  const whose = direct === undefined ? ` of ${record.owner.name}` : '';
  const release = (await platform.takeTurn?.(target.conversationKey)) ?? (() => {});
  try {
    await target.responder.surface.post(
      `⏸ Paused ${what}${whose} “${record.what}” (${record.whenText}): ${text} It stays paused until it is resumed with /schedules.`,
    );
  } catch (error) {
    logger.warn({ err: error, scheduleId: record.id }, 'could not say that a schedule paused');
  } finally {
    release();
  }
}

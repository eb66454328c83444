import { placeOfConversation } from '../../src/conversation/turn.ts';
import type { Person } from '../../src/retention/kept-data.ts';
import { parseWhen, type WhenParse } from '../../src/scheduling/when-phrase.ts';
import { textOption } from '../command-options.ts';
import type { CommandContext, CommandServices } from '../define-command.ts';

/**
 * `--tz Europe/Berlin`: the zone a command's times are read in, when not the usual one: the
 * person's (see `timeZoneFor`) for their own reminders, the place's for a channel's schedule.
 */
export function timeZoneOption(whose: 'person' | 'place') {
  return textOption({
    description:
      whose === 'person'
        ? 'The time zone to read the time in (IANA, e.g. Europe/Berlin); default: your /timezone'
        : 'The time zone to read the time in (IANA, e.g. Europe/Berlin); default: this server’s',
    maxLength: 64,
    aliases: ['timezone'],
  });
}

/** Why a zone name cannot be used, or undefined when Intl knows it. */
export function timeZoneProblem(timeZone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return undefined;
  } catch {
    return `"${timeZone}" is not a time zone; use an IANA name such as Europe/Berlin or America/New_York`;
  }
}

/** The person a command's user is, on the platform of its conversation: whose /timezone it is. */
export function personOf({
  user,
  conversationKey,
}: {
  user: { id: string };
  conversationKey: string;
}): Person {
  return { platform: placeOfConversation(conversationKey).platform, userId: user.id };
}

/** Where a zone came from, for /timezone to say. */
export type TimeZoneSource =
  | 'typed'
  | 'set by you'
  | 'from your platform profile'
  | 'this server’s'
  | 'parley’s default';

/**
 * The zone a command's times are read in, and where it came from. A person's own times (`person`:
 * /remind) are theirs: `--tz`, else the zone they set with /timezone, else the one their platform
 * tells (Slack's `users.info` `tz`; Discord tells none), else the place's. A place's times (`place`:
 * /schedule for a channel) are the place's: `--tz`, else SCHEDULE_TIMEZONE set with /config for the
 * channel or server, else the process's.
 */
export async function timeZoneFor({
  whose,
  typed,
  user,
  conversationKey,
  services,
  platformTimeZone,
}: {
  whose: 'person' | 'place';
  typed: string | undefined;
  user: { id: string };
  conversationKey: string;
  services: Pick<CommandServices, 'places' | 'scheduling'>;
  platformTimeZone: string | undefined;
}): Promise<{ timeZone: string; source: TimeZoneSource }> {
  if (typed !== undefined) return { timeZone: typed, source: 'typed' };
  if (whose === 'person') {
    const own = await services.scheduling?.personalTimeZones.of(personOf({ user, conversationKey }));
    if (own !== undefined) return { timeZone: own.timeZone, source: 'set by you' };
    // A profile's zone Intl does not know is passed over rather than refused: the person did not type it.
    if (platformTimeZone !== undefined && timeZoneProblem(platformTimeZone) === undefined) {
      return { timeZone: platformTimeZone, source: 'from your platform profile' };
    }
  }
  const settings = await services.places.settingsAt(placeOfConversation(conversationKey));
  if (settings.scheduleTimeZone !== undefined)
    return { timeZone: settings.scheduleTimeZone, source: 'this server’s' };
  return { timeZone: services.scheduling?.timeZone ?? 'UTC', source: 'parley’s default' };
}

/**
 * What /remind and /schedule share: the zone (`timeZoneFor`) checked, then the when-phrase read in
 * it, with what must follow it. Either the phrase, its zone and what follows, or the one line that
 * tells the person what is wrong.
 */
export async function readWhenAndWhat({
  context,
  text,
  typedZone,
  whose,
  missingWhat,
}: {
  context: Pick<CommandContext<unknown>, 'user' | 'conversationKey' | 'services' | 'platformTimeZone'>;
  text: string;
  typedZone: string | undefined;
  whose: 'person' | 'place';
  /** Said when nothing follows the time: "what to remind you of". */
  missingWhat: string;
}): Promise<
  | { isRead: true; timeZone: string; when: Extract<WhenParse, { isValid: true }> }
  | { isRead: false; problem: string }
> {
  const { timeZone } = await timeZoneFor({
    whose,
    typed: typedZone,
    user: context.user,
    conversationKey: context.conversationKey,
    services: context.services,
    platformTimeZone: context.platformTimeZone,
  });
  const zoneProblem = timeZoneProblem(timeZone);
  if (zoneProblem !== undefined) return { isRead: false, problem: zoneProblem };
  const when = parseWhen({ text, timeZone, nowMs: context.services.now().getTime() });
  if (!when.isValid) return { isRead: false, problem: `${when.problem}.` };
  if (when.rest === '')
    return { isRead: false, problem: `Say ${missingWhat} after the time (${when.whenText}).` };
  return { isRead: true, timeZone, when };
}

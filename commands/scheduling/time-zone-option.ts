import { placeOfConversation } from '../../src/conversation/turn.ts';
import { textOption } from '../command-options.ts';
import type { CommandServices } from '../define-command.ts';

/** `--tz Europe/Berlin`: the zone a command's times are read in, when not the place's. */
export const timeZoneOption = textOption({
  description: 'The time zone to read the time in (IANA, e.g. Europe/Berlin); default: this server’s',
  maxLength: 64,
  aliases: ['timezone'],
});

/** Why a zone name cannot be used, or undefined when Intl knows it. */
export function timeZoneProblem(timeZone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return undefined;
  } catch {
    return `"${timeZone}" is not a time zone; use an IANA name such as Europe/Berlin or America/New_York`;
  }
}

/**
 * The zone a command's times are read in: its own `--tz`, else the place's (SCHEDULE_TIMEZONE set
 * with /config for the channel or server), else the process's.
 */
export async function timeZoneFor({
  typed,
  conversationKey,
  services,
  fallback,
}: {
  typed: string | undefined;
  conversationKey: string;
  services: Pick<CommandServices, 'places'>;
  fallback: string;
}): Promise<string> {
  if (typed !== undefined) return typed;
  const settings = await services.places.settingsAt(placeOfConversation(conversationKey));
  return settings.scheduleTimeZone ?? fallback;
}

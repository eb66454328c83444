import { textOption } from '../command-options.ts';

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

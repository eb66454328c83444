import { z } from 'zod';

/** A server or workspace of a platform, as conversation keys name it (`discord`, guild id). */
export const consolePlaceSchema = z.object({ platform: z.string(), workspace: z.string() });

export type ConsolePlace = z.infer<typeof consolePlaceSchema>;

/**
 * Who signed in to the console: a platform user id and the name shown, how they proved it, and the
 * places they may ask about. The places are candidates only, never authority: every request asks the
 * platform who the person is there now and asks `authorize`.
 */
export const consolePersonSchema = z.object({
  platform: z.string(),
  userId: z.string(),
  name: z.string(),
  signedInWith: z.enum(['discord', 'slack', 'link']),
  places: z.array(consolePlaceSchema),
});

export type ConsolePerson = z.infer<typeof consolePersonSchema>;

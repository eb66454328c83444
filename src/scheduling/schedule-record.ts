import { z } from 'zod';

/**
 * What is kept of the person who made a schedule: who they are (their platform id, and a name to
 * show in lists), never what they were allowed. Each run asks the platform for their roles, admin
 * rights and membership as they are then (commands/scheduled-run.ts). Records written before this
 * carry `roleIds`, `isAdmin` and `context` too: zod's object drops unknown keys, so they still
 * parse and those fields never reach a decision.
 */
const ownerSchema = z.object({
  id: z.string(),
  name: z.string(),
});

const timingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('once'), atMs: z.number() }),
  z.object({ kind: z.literal('cron'), pattern: z.string() }),
]);

/**
 * One schedule as the store keeps it. `reminder`: a person's own, answered in their DM with parley;
 * `place`: a prompt or command run in the channel (or thread) where it was made.
 */
export const scheduleRecordSchema = z.object({
  id: z.string(),
  kind: z.enum(['reminder', 'place']),
  /** Where it was made; a place schedule answers here. */
  conversationKey: z.string(),
  owner: ownerSchema,
  /** The reminder's text, or the prompt or `/command …` to run. */
  what: z.string(),
  /** The when as the person typed it, for the list. */
  whenText: z.string(),
  timing: timingSchema,
  timeZone: z.string(),
  state: z.enum(['active', 'paused']),
  /** Why it was paused by parley (a budget that cannot pay); undefined when a person paused it. */
  pausedReason: z.string().optional(),
  /** The run the wheel waits for (ms since the epoch); undefined once a single run is done. */
  nextRunAtMs: z.number().optional(),
  createdAtMs: z.number(),
  lastRun: z
    .object({
      atMs: z.number(),
      status: z.enum(['ran', 'failed', 'skipped', 'unpaid', 'refused']),
      note: z.string().optional(),
    })
    .optional(),
  runCount: z.number().default(0),
});

export type ScheduleRecord = z.infer<typeof scheduleRecordSchema>;
export type ScheduleOwner = z.infer<typeof ownerSchema>;

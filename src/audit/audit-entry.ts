import { z } from 'zod';

/**
 * The kinds of deeds the audit trail keeps. Refusals are recorded once per person an hour (they are
 * counted, not each one kept), everything else each time it happens.
 */
export const auditKinds = [
  'config-change',
  'access-refused',
  'budget-refused',
  'tool-call',
  'schedule-run',
  'schedule-paused',
  'schedule-changed',
  'shared-memory',
  'forget',
  'export',
  // A Slack workspace or org installing parley by OAuth, or uninstalling it (its tokens removed).
  'installation',
  'connector',
] as const;

export type AuditKind = (typeof auditKinds)[number];

/** How a deed ended. */
export const auditResults = ['done', 'refused', 'failed'] as const;

const personSchema = z.object({ id: z.string(), name: z.string() });

/** Someone in the audit trail: a platform user id and the name shown when it happened. */
export type AuditPerson = z.infer<typeof personSchema>;

/**
 * One deed in the audit trail: when, where (the server or workspace, and the channel when there is
 * one), who did it, on whose authority when that is someone else (a schedule's owner, the person
 * whose reply's model called a tool), what, and how it ended. `details` holds sizes, hashes and
 * names, never a payload: the trail is read by admins, and what people wrote stays theirs.
 */
export const auditEntrySchema = z.object({
  id: z.string(),
  atMs: z.number(),
  platform: z.string(),
  workspace: z.string(),
  channel: z.string().optional(),
  actor: personSchema,
  onBehalfOf: personSchema.optional(),
  kind: z.enum(auditKinds),
  /** One short line for people: "set BUDGET_COST_USER_DAILY to 0.5 (server)". */
  what: z.string(),
  result: z.enum(auditResults),
  details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});

export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** What a deed's author gives the trail; the trail adds the id and the time. */
export type NewAuditEntry = Omit<AuditEntry, 'id' | 'atMs'>;

/** The longest `what` kept: a line, not a document. */
export const maxAuditWhatCharacters = 300;

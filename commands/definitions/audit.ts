import type { AuditEntry } from '../../src/audit/audit-entry.ts';
import { auditKinds } from '../../src/audit/audit-entry.ts';
import { placeOfConversation } from '../../src/conversation/turn.ts';
import { choiceOption, integerOption, userOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';

/** Entries on one page of /audit. */
const pageSize = 20;
const dayMs = 24 * 60 * 60_000;

/**
 * /audit: what was done in this server or workspace and on whose authority, newest first: settings
 * changed, refusals, tool calls and their approvals, scheduled runs and pauses, the shared notes,
 * /forget and /export. Admins only, and only their own place's trail; always private.
 */
export const auditCommand = defineCommand({
  name: 'audit',
  description: 'What was done here and on whose authority: settings, refusals, tools, schedules (admins)',
  options: {
    user: userOption({ description: 'Only what this person did, or what was done on their authority' }),
    kind: choiceOption({ description: 'Only this kind of entry', choices: auditKinds }),
    days: integerOption({ description: 'Only the last this many days', minValue: 1, maxValue: 3650 }),
    page: integerOption({
      description: 'Which page of 20 entries',
      minValue: 1,
      maxValue: 500,
      defaultValue: 1,
    }),
  },
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ input, conversationKey, user, responder, services }) {
    const verdict = await services.access.authorize({
      actor: user,
      conversationKey,
      capability: { kind: 'administer' },
    });
    if (!verdict.isAllowed) {
      await responder.send({ text: verdict.text, isPrivate: true });
      return;
    }
    if (user.context === 'direct-message' || user.context === 'group-direct-message') {
      await responder.send({
        text: 'The audit trail belongs to a server or workspace: run /audit in one of its channels.',
        isPrivate: true,
      });
      return;
    }
    const place = placeOfConversation(conversationKey);
    const query = {
      platform: place.platform,
      workspace: place.workspace,
      ...(input.user === undefined ? {} : { personId: input.user }),
      ...(input.kind === undefined ? {} : { kind: input.kind }),
      ...(input.days === undefined ? {} : { sinceMs: services.now().getTime() - input.days * dayMs }),
      limit: pageSize,
    };
    let page = await services.audit.read(query);
    for (let number = 2; number <= input.page && page.nextCursor !== undefined; number += 1) {
      page = await services.audit.read({ ...query, cursor: page.nextCursor });
    }
    const filters = [
      input.user === undefined ? undefined : `about <@${input.user}>`,
      input.kind,
      input.days === undefined ? undefined : `last ${input.days} days`,
    ].filter((filter) => filter !== undefined);
    const heading = `Audit trail of this ${place.platform === 'slack' ? 'workspace' : 'server'}${filters.length === 0 ? '' : ` (${filters.join(', ')})`}, page ${input.page}, newest first:`;
    if (page.entries.length === 0) {
      await responder.send({ text: `${heading}\nNothing recorded.`, isPrivate: true });
      return;
    }
    const footer = [
      page.overflowed > 0 ? `⚠ ${page.overflowed} entries of busy days were counted but not kept.` : '',
      page.nextCursor === undefined ? '' : `More: /audit --page ${input.page + 1}`,
    ].filter((line) => line !== '');
    await responder.send({
      text: [heading, ...page.entries.map(lineOf), ...footer].join('\n'),
      isPrivate: true,
    });
  },
});

/** One entry as a line: when, what kind, who (and on whose authority), what, how it ended. */
function lineOf(entry: AuditEntry): string {
  const when = new Date(entry.atMs).toISOString().slice(0, 16).replace('T', ' ');
  const who =
    entry.onBehalfOf === undefined ? entry.actor.name : `${entry.actor.name} for ${entry.onBehalfOf.name}`;
  const result = entry.result === 'done' ? '' : ` — ${entry.result}`;
  // What people or models wrote stays text: no mention pings, no formatting of theirs.
  return `• ${when} UTC · ${entry.kind} · ${codeSpan(who)}: ${codeSpan(entry.what)}${result}`;
}

/**
 * Text shown as it is, on every platform: a code span whose fence is longer than any run of
 * backticks inside it (CommonMark "Code spans"), on one line, padded where it starts or ends with one.
 */
function codeSpan(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  const longestRun = Math.max(0, ...[...line.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longestRun + 1);
  const padding = line.startsWith('`') || line.endsWith('`') ? ' ' : '';
  return `${fence}${padding}${line}${padding}${fence}`;
}

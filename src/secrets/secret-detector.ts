import { findWithParleyPatterns } from './parley-patterns.ts';
import { findWithSecretlintRules, type RuleFinding } from './secretlint-rules.ts';

/**
 * The one place parley decides what looks like a password, token or key: memory refuses it, the
 * log scrubs it from every line, /export redacts it. The rules are secretlint's recommended preset
 * (a maintained set of credential shapes: GitHub, AWS, Slack, Stripe, npm, Anthropic, OpenAI,
 * GitLab, database URLs…) plus the few shapes it lacks (parley-patterns.ts).
 */
export type SecretFinding = RuleFinding;

export const redactedMarker = '[redacted]';

/** Every credential-shaped value in `text`, by position, overlapping ones merged. */
export function findSecrets({ text }: { text: string }): SecretFinding[] {
  const findings = [...findWithSecretlintRules({ text }), ...findWithParleyPatterns({ text })].map(
    (finding) => narrowToUrlPassword(text, finding),
  );
  return mergeOverlapping(findings);
}

/** Whether `text` holds anything that looks like a password, token or key. */
export function containsSecret({ text }: { text: string }): boolean {
  return findSecrets({ text }).length > 0;
}

/**
 * `text` with every known secret value (parley's own keys and tokens, from config) and every
 * credential-shaped value replaced by `[redacted]`.
 */
export function redactSecrets({
  text,
  knownValues = [],
}: {
  text: string;
  knownValues?: readonly string[];
}): string {
  let withoutKnown = text;
  for (const value of knownValues) {
    // Shorter values would match by chance in ordinary words.
    if (value.length >= 4) withoutKnown = withoutKnown.replaceAll(value, redactedMarker);
  }
  return redactFindings({ text: withoutKnown, findings: findSecrets({ text: withoutKnown }) });
}

/** `text` with the given ranges (from findSecrets on it or on a text of the same length) redacted. */
export function redactFindings({
  text,
  findings,
}: {
  text: string;
  findings: readonly SecretFinding[];
}): string {
  if (findings.length === 0) return text;
  let redacted = '';
  let at = 0;
  for (const { start, end } of findings) {
    redacted += text.slice(at, start) + redactedMarker;
    at = end;
  }
  return redacted + text.slice(at);
}

/**
 * A rule that reports a whole connection URL (postgres://user:password@host/db) has found its
 * password: only that goes, so a log line still says which host failed.
 */
function narrowToUrlPassword(text: string, finding: SecretFinding): SecretFinding {
  const found = text.slice(finding.start, finding.end);
  const credentials = /^[a-z][\w+.-]*:\/\/[^:/?#@\s[\]]*:([^/?#@\s[\]]+)@/i.exec(found);
  if (!credentials?.[1]) return finding;
  const start = finding.start + credentials[0].length - 1 - credentials[1].length;
  return { kind: finding.kind, start, end: start + credentials[1].length };
}

function mergeOverlapping(findings: SecretFinding[]): SecretFinding[] {
  const sorted = findings.sort((left, right) => left.start - right.start || right.end - left.end);
  const merged: SecretFinding[] = [];
  for (const finding of sorted) {
    const last = merged.at(-1);
    if (last && finding.start <= last.end) {
      merged[merged.length - 1] = { ...last, end: Math.max(last.end, finding.end) };
    } else merged.push(finding);
  }
  return merged;
}

import type { SpecificationViolation } from './specification-check.ts';

/**
 * Every fake Discord started in this test file, so that test/support/specification-violations-setup.ts
 * can fail the test during which one recorded a request the specification forbids, without each test
 * asking. Kept apart from the fake so the setup file loads nothing else.
 */
export interface ViolationRecorder {
  /** Which fake it is, for the failure message (its origin). */
  readonly label: string;
  /** The violations recorded since the last call, removed from the fake. */
  takeSpecificationViolations(): SpecificationViolation[];
}

const startedFakes = new Set<ViolationRecorder>();

export function watchSpecificationViolations(recorder: ViolationRecorder): void {
  startedFakes.add(recorder);
}

/** The violations of every fake started so far, taken from them; closed fakes stay until `forget`. */
export function takeEveryViolation(): { label: string; violations: SpecificationViolation[] }[] {
  return [...startedFakes]
    .map((recorder) => ({ label: recorder.label, violations: recorder.takeSpecificationViolations() }))
    .filter(({ violations }) => violations.length > 0);
}

/** Forgets every fake, at the end of a test file. */
export function forgetWatchedFakes(): void {
  startedFakes.clear();
}

/** A violation in a few lines, for a failing test's message. */
export function describeViolation(violation: SpecificationViolation): string {
  const where = violation.template
    ? `${violation.operationId ?? 'no operation'} (${violation.method} ${violation.template})`
    : 'no such route in the specification';
  const errors = violation.errors
    .slice(0, 8)
    .map(
      (error) =>
        `    ${error.instancePath || '/'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`,
    )
    .join('\n');
  const body = JSON.stringify(violation.body) ?? 'no body';
  return [
    `${violation.kind}: ${violation.method} ${violation.path} — ${where}`,
    ...(errors ? [errors] : []),
    `    body: ${body.length > 600 ? `${body.slice(0, 600)}…` : body}`,
  ].join('\n');
}

import { afterAll, afterEach } from 'vitest';
import {
  describeViolation,
  forgetWatchedFakes,
  takeEveryViolation,
} from '../fakes/discord/specification-violations.ts';

/**
 * Issue 27, "Proof": every request the bot makes to a fake Discord is checked against Discord's
 * OpenAPI specification, and a test during which one was forbidden fails here, after the test's own
 * hooks, with what was sent and what the specification says. Requests made in `beforeAll` fail the
 * first test; those made in `afterAll` fail the file.
 */
function failOnViolations(): void {
  const found = takeEveryViolation();
  if (found.length === 0) {
    return;
  }
  const lines = found.flatMap(({ label, violations }) => [
    `fake Discord ${label}: ${violations.length} request(s) the OpenAPI specification forbids`,
    ...violations.map(describeViolation),
  ]);
  throw new Error(lines.join('\n'));
}

afterEach(failOnViolations);

afterAll(() => {
  try {
    failOnViolations();
  } finally {
    forgetWatchedFakes();
  }
});

/**
 * An error whose `userMessage` is written for the person and safe to show as is: short, no stack,
 * no secrets. Anything else that goes wrong is shown as a generic line and logged in full.
 */
export class UserFacingError extends Error {
  readonly userMessage: string;
  constructor({ message, userMessage, cause }: { message: string; userMessage: string; cause?: unknown }) {
    super(message, { cause });
    this.name = 'UserFacingError';
    this.userMessage = userMessage;
  }
}

/** The message to show a person for any error: its own when it has one, a generic line otherwise. */
export function userMessageOf(error: unknown): string {
  if (
    typeof error === 'object' &&
    error !== null &&
    'userMessage' in error &&
    typeof error.userMessage === 'string'
  ) {
    return error.userMessage;
  }
  return 'Something went wrong on my side. It has been logged.';
}

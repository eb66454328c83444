/** Marks every error of the family, so it is recognised even across two copies of this module. */
const userFacingMarker = Symbol.for('parley.user-facing-error');

/** What a person is told when something failed that has no words of its own; the details go to the log. */
export const genericUserMessage = 'Something went wrong on my side. It has been logged.';

/**
 * The root of parley's errors: every one whose `userMessage` is written for the person and safe to
 * show as is (short, no stack, no secrets) descends from it — GatewayError, ImageLoadError,
 * SearchUnavailableError, StoreTimeoutError, ConfigError, StoreUrlError. Anything else that goes
 * wrong is shown as `genericUserMessage` and logged in full.
 *
 * `UserFacingError.isInstance` recognises the family by a registered symbol rather than the class
 * object, so it holds where `instanceof` would not (a module loaded twice, an error crossing a realm),
 * as the AI SDK's errors do.
 */
export class UserFacingError extends Error {
  readonly [userFacingMarker] = true;
  readonly userMessage: string;
  constructor({ message, userMessage, cause }: { message: string; userMessage: string; cause?: unknown }) {
    super(message, { cause });
    this.name = 'UserFacingError';
    this.userMessage = userMessage;
  }

  static isInstance(error: unknown): error is UserFacingError {
    return typeof error === 'object' && error !== null && userFacingMarker in error;
  }
}

/** The message to show a person for any error: its own when it has one, the generic line otherwise. */
export function userMessageOf(error: unknown): string {
  return UserFacingError.isInstance(error) ? error.userMessage : genericUserMessage;
}

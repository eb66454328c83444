import { UserFacingError } from '../user-facing-error.ts';

/** Thrown by an attachment's `load()` when the platform explains why; `userMessage` is shown as is. */
export class ImageLoadError extends UserFacingError {
  override readonly name = 'ImageLoadError';
}

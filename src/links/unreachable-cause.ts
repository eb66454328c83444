/**
 * Why a site could not be reached, when the error says: its host name has no address, or nothing
 * listens at the address. Undefined for anything else (a timeout, a reset), told in general words.
 */
export type UnreachableCause = 'host-not-found' | 'connection-refused';

const hostNotFoundCodes = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME']);

export function unreachableCauseOf(error: unknown): UnreachableCause | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code !== undefined && hostNotFoundCodes.has(code)) return 'host-not-found';
    if (code === 'ECONNREFUSED') return 'connection-refused';
    current = current.cause;
  }
  return undefined;
}

/**
 * How /readyz names a platform call that got no answer at all: `no answer (ECONNRESET)`, from the
 * error's own code, else its cause's (undici's `fetch failed` carries the socket's), else its name.
 */
export function noAnswerFailureOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const causeCode = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  const name =
    typeof code === 'string'
      ? code
      : typeof causeCode === 'string'
        ? causeCode
        : error instanceof Error
          ? error.name
          : 'error';
  return `no answer (${name})`;
}

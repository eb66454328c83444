/** The parts of a fetch response (global fetch's, or guarded-fetch's) that reading a bounded body needs. */
export interface BodyResponse {
  readonly headers: { get(name: string): string | null };
  readonly body: (AsyncIterable<Uint8Array> & { cancel(): Promise<void> }) | null;
}

/**
 * Reads a response body of at most `maxBytes`, refusing by the declared length first and then while
 * reading, since a length header can be absent or wrong: a link must never make us buffer an
 * unbounded body. `tooBig` makes the error to throw.
 */
export async function readBoundedBody({
  response,
  maxBytes,
  tooBig,
}: {
  response: BodyResponse;
  maxBytes: number;
  tooBig: () => Error;
}): Promise<Uint8Array> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooBig();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.length;
    if (total > maxBytes) throw tooBig();
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

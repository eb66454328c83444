const wordsPerChunk = 3;

/**
 * Splits reply text into the `delta.content` pieces of a stream. Joined, the pieces are the text
 * exactly. With `chunkSize` each piece holds that many characters (whole code points, so an emoji is
 * never torn); without it, a few words each, like a real model's tokens grouped.
 */
export function splitIntoChunks(text: string, chunkSize: number | undefined): string[] {
  if (chunkSize !== undefined) {
    if (!Number.isInteger(chunkSize) || chunkSize < 1) {
      throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
    }
    const codePoints = Array.from(text);
    const chunks: string[] = [];
    for (let start = 0; start < codePoints.length; start += chunkSize) {
      chunks.push(codePoints.slice(start, start + chunkSize).join(''));
    }
    return chunks;
  }
  // Each word keeps the whitespace that follows it, so nothing is lost between pieces.
  const words = text.match(/^\s+|\S+\s*/g) ?? [];
  const chunks: string[] = [];
  for (let start = 0; start < words.length; start += wordsPerChunk) {
    chunks.push(words.slice(start, start + wordsPerChunk).join(''));
  }
  return chunks;
}

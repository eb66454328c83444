import yauzl from 'yauzl';
import { ReadProblem } from './read-problem.ts';

/** More entries than any real office file has: a zip of many tiny files is a bomb of another kind. */
const maxEntryCount = 5_000;

/**
 * Checks an office file (DOCX, XLSX, PPTX are zips) before any library inflates it: the sizes its
 * directory declares must add up to at most `maxUnpackedBytes`, and every entry is then inflated
 * here, counting bytes, so an entry that lies about its size is caught (yauzl stops a stream that
 * runs past its declared size). Returns the entry names.
 */
export async function checkZip({
  bytes,
  maxUnpackedBytes,
}: {
  bytes: Uint8Array;
  maxUnpackedBytes: number;
}): Promise<string[]> {
  const zip = await openZip(bytes);
  try {
    const entries = await listEntries(zip);
    const declaredBytes = entries.reduce((total, entry) => total + entry.uncompressedSize, 0);
    if (entries.length > maxEntryCount || declaredBytes > maxUnpackedBytes) {
      throw new ReadProblem({
        reason: 'unpacks-too-large',
        detail: `zip declares ${entries.length} entries, ${declaredBytes} bytes unpacked`,
      });
    }
    for (const entry of entries) await inflateCounting(zip, entry);
    return entries.map((entry) => entry.fileName);
  } finally {
    zip.close();
  }
}

function openZip(bytes: Uint8Array): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: false },
      (error, zip) => {
        if (error || !zip) {
          reject(
            new ReadProblem({
              reason: 'damaged',
              detail: `not a readable zip: ${error?.message}`,
              cause: error,
            }),
          );
        } else resolve(zip);
      },
    );
  });
}

function listEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      if (entries.length > maxEntryCount) resolve(entries);
      else zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (error: Error) =>
      reject(new ReadProblem({ reason: 'damaged', detail: `zip directory: ${error.message}`, cause: error })),
    );
    zip.readEntry();
  });
}

function inflateCounting(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<void> {
  if (entry.fileName.endsWith('/')) return Promise.resolve();
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error || !stream) {
        reject(
          new ReadProblem({
            reason: 'damaged',
            detail: `zip entry ${entry.fileName}: ${error?.message}`,
            cause: error,
          }),
        );
        return;
      }
      stream.on('data', () => undefined);
      stream.on('end', () => resolve());
      stream.on('error', (streamError: Error) =>
        reject(
          new ReadProblem({
            reason: /too many bytes/i.test(streamError.message) ? 'unpacks-too-large' : 'damaged',
            detail: `zip entry ${entry.fileName}: ${streamError.message}`,
            cause: streamError,
          }),
        ),
      );
    });
  });
}

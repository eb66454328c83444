import { Keyv } from 'keyv';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import {
  createDocumentReader,
  type DocumentReaderOptions,
  type ReadResult,
} from '../../src/documents/document-reader.ts';
import { createDocumentStore } from '../../src/documents/document-store.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import {
  createDocx,
  createDocxBomb,
  createManyPagePdf,
  createScannedPdf,
  createTextPdf,
  createXlsx,
} from '../support/sample-documents.ts';
import { writeZip } from '../support/zip-writer.ts';

function readerFor(overrides: Partial<DocumentReaderOptions> = {}) {
  const { logger, output } = createCapturedLogger([]);
  const reader = createDocumentReader({
    store: createDocumentStore({ store: new Keyv(), maxTotalBytes: 10_000_000, lifetimeMs: 60_000 }),
    maxBytes: 5 * 1024 * 1024,
    readLimits: { maxUnits: 100, maxCharacters: 200_000, maxRenderedPages: 2, maxUnpackedBytes: 20_000_000 },
    workerLimits: { timeoutMs: 20_000, maxHeapMb: 256 },
    logger,
    ...overrides,
  });
  return { reader, logOutput: output };
}

const file = (name: string, bytes: Uint8Array, mimeType?: string) => ({
  name,
  ...(mimeType ? { mimeType } : {}),
  load: async () => bytes,
});

function documentOf(result: ReadResult) {
  if ('problem' in result) throw new Error(`expected a document, got: ${result.problem}`);
  return result.document;
}

function problemOf(result: ReadResult): string {
  if (!('problem' in result)) throw new Error(`expected a problem, got a ${result.document.kind}`);
  return result.problem;
}

describe('reading documents on a worker thread', () => {
  it('reads a PDF page by page, each page marked for citing', async () => {
    const { reader } = readerFor();
    const pdf = await createTextPdf([['Introduction'], ['Revenue 2025', 'Total: 4,210 EUR']]);
    const document = documentOf(await reader.read(file('report.pdf', pdf)));
    expect(document).toMatchObject({ kind: 'pdf', unitCount: 2, readUnitCount: 2 });
    expect(document.sections).toEqual([
      { location: 'p. 1', text: 'Introduction' },
      { location: 'p. 2', text: 'Revenue 2025\nTotal: 4,210 EUR' },
    ]);
  });

  it('reads a Word document, a spreadsheet with cell ranges, and a CSV as a table', async () => {
    const { reader } = readerFor();
    const docx = documentOf(
      await reader.read(file('memo.docx', createDocx(['Dear team,', 'The launch moves to May.']))),
    );
    expect(docx).toMatchObject({
      kind: 'docx',
      sections: [{ text: 'Dear team,\n\nThe launch moves to May.' }],
    });

    const xlsx = documentOf(
      await reader.read(
        file(
          'sales.xlsx',
          await createXlsx({
            Q1: [
              ['Item', 'Units'],
              ['apples', 12],
              ['pears', 7],
            ],
            'Q2 plan': [['Goal', 30]],
          }),
        ),
      ),
    );
    expect(xlsx.sections.map((section) => section.location)).toEqual(['Q1!A1:B3', "'Q2 plan'!A1:B1"]);
    expect(xlsx.sections[0]?.text).toContain('| 3 | pears | 7 |');

    const csv = documentOf(
      await reader.read(file('people.csv', new TextEncoder().encode('name,age\nAda,36\n"Lovelace, A",37\n'))),
    );
    expect(csv).toMatchObject({ kind: 'csv', sections: [{ location: 'people!A1:B3' }] });
    expect(csv.sections[0]?.text).toContain('| 3 | Lovelace, A | 37 |');
  });

  it('tells text, Markdown and source code by their bytes, whatever the name says', async () => {
    const { reader } = readerFor();
    const source = documentOf(
      await reader.read(file('notes', new TextEncoder().encode('# Plan\n\n- ship it\n'))),
    );
    expect(source).toMatchObject({ kind: 'text', sections: [{ text: '# Plan\n\n- ship it\n' }] });
    const binary = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2]);
    expect(problemOf(await reader.read(file('notes.txt', binary)))).toMatch(
      /^I cannot read notes\.txt: I read PDF, Word/,
    );
  });

  it('renders a scanned PDF (no text layer) as page images for a vision model', async () => {
    const { reader } = readerFor();
    const document = documentOf(await reader.read(file('scan.pdf', await createScannedPdf())));
    expect(document.sections).toEqual([]);
    expect(document.pageImages).toHaveLength(1);
    expect(
      Buffer.from(document.pageImages[0]?.pngBase64 ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });

  it('reads the first pages of a PDF with 10,000 pages, and says so', async () => {
    const { reader } = readerFor();
    const document = documentOf(
      await reader.read(file('huge.pdf', createManyPagePdf({ pageCount: 10_000 }))),
    );
    expect(document.readUnitCount).toBe(100);
    expect(document.notes).toEqual(['huge.pdf has 10,000 pages; I read only the first 100.']);
  });

  it('refuses zip bombs before inflating them, whether they declare their size or lie about it', async () => {
    const { reader } = readerFor();
    const honest = createDocxBomb({ unpackedBytes: 50_000_000 });
    expect(honest.length).toBeLessThan(200_000);
    expect(problemOf(await reader.read(file('bomb.docx', honest)))).toBe(
      'bomb.docx unpacks to more than 19.1 MB, more than I unpack, so I left it out.',
    );
    const lying = createDocxBomb({ unpackedBytes: 50_000_000, isLyingAboutSize: true });
    expect(problemOf(await reader.read(file('liar.docx', lying)))).toMatch(
      /^liar\.docx unpacks to more than/,
    );
  });

  it('gives clear notes for encrypted, damaged, oversized and presentation files', async () => {
    const { reader, logOutput } = readerFor({ maxBytes: 1024 * 1024 });
    const pdf = await PDFDocument.create();
    pdf.addPage();
    const encrypted = encryptPdfTrailer(await pdf.save({ useObjectStreams: false }));
    expect(problemOf(await reader.read(file('locked.pdf', encrypted)))).toBe(
      'locked.pdf is protected with a password, so I could not read it. Send a copy without the password.',
    );
    expect(
      problemOf(await reader.read(file('broken.pdf', new TextEncoder().encode('%PDF-1.7\nnothing else')))),
    ).toMatch(/^broken\.pdf could not be read \(it seems damaged/);
    expect(problemOf(await reader.read(file('big.csv', new Uint8Array(2 * 1024 * 1024).fill(65))))).toBe(
      'big.csv is 2.0 MB, over the 1.0 MB limit for documents, so I left it out.',
    );
    const pptx = writeZip([{ name: 'ppt/presentation.xml', data: '<p:presentation/>' }]);
    expect(problemOf(await reader.read(file('deck.pptx', pptx)))).toBe(
      'I cannot read presentations like deck.pptx yet; export it as a PDF and send that.',
    );
    expect(logOutput()).toContain('"reason":"encrypted"');
  });

  it('stops a parse that takes too long, and a second read of the same file parses nothing', async () => {
    const slow = readerFor({
      workerLimits: { timeoutMs: 1_000, maxHeapMb: 256 },
      readLimits: { maxUnits: 10_000, maxCharacters: 10_000_000, maxRenderedPages: 1, maxUnpackedBytes: 1e8 },
    });
    expect(
      problemOf(await slow.reader.read(file('slow.pdf', createManyPagePdf({ pageCount: 10_000 })))),
    ).toBe('slow.pdf took longer than 1 s to read, so I left it out.');

    const { reader, logOutput } = readerFor();
    const pdf = await createTextPdf([['Once']]);
    const first = await reader.read(file('once.pdf', pdf));
    const second = await reader.read(file('again.pdf', pdf));
    expect(documentOf(second)).toMatchObject({ name: 'again.pdf', sections: [{ text: 'Once' }] });
    expect(
      'documentHash' in second && 'documentHash' in first && second.documentHash === first.documentHash,
    ).toBe(true);
    expect(logOutput().match(/"msg":"document read"/g)).toHaveLength(1);
  });
});

/**
 * Marks a PDF as encrypted (ISO 32000-1, 7.6.1: an /Encrypt dictionary in the trailer) with the
 * standard security handler and a user password, which is what makes readers ask for it.
 */
function encryptPdfTrailer(bytes: Uint8Array): Uint8Array {
  const text = Buffer.from(bytes).toString('latin1');
  const encrypt = `<< /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -44 >>`;
  const marked = text.replace(
    /trailer\s*<</,
    `trailer\n<< /Encrypt ${encrypt} /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`,
  );
  return new Uint8Array(Buffer.from(marked, 'latin1'));
}

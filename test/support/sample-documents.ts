import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { writeZip } from './zip-writer.ts';

/** A PDF whose page N says `pageTexts[N-1]`, made with pdf-lib. */
export async function createTextPdf(pageTexts: readonly (readonly string[])[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pageTexts) {
    const page = pdf.addPage([420, 595]);
    lines.forEach((line, index) => {
      page.drawText(line, { x: 40, y: 540 - index * 20, font, size: 12 });
    });
  }
  return pdf.save();
}

/** A PDF of `pageCount` empty pages, cheap to make at any size. */
export async function createBlankPdf(pageCount: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (let index = 0; index < pageCount; index += 1) pdf.addPage([200, 200]);
  return pdf.save();
}

/** A scanned page: a PDF with only an image on it (black bars on white), no text layer. */
export async function createScannedPdf(): Promise<Uint8Array> {
  const png = await sharp({
    create: { width: 300, height: 400, channels: 3, background: { r: 255, g: 255, b: 255 } },
  })
    .composite([
      {
        input: { create: { width: 200, height: 20, channels: 3, background: { r: 0, g: 0, b: 0 } } },
        top: 50,
        left: 50,
      },
    ])
    .png()
    .toBuffer();
  const pdf = await PDFDocument.create();
  const image = await pdf.embedPng(png);
  const page = pdf.addPage([300, 400]);
  page.drawImage(image, { x: 0, y: 0, width: 300, height: 400 });
  return pdf.save();
}

const contentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const packageRelationships = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

/** The main part of a DOCX (ECMA-376 Part 1, 17.2) with one paragraph per line. */
function documentXml(paragraphs: readonly string[]): string {
  const body = paragraphs
    .map((text) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
}

/** A minimal Word document: the three parts a reader needs (ECMA-376 Part 2, Open Packaging). */
export function createDocx(paragraphs: readonly string[]): Uint8Array {
  return writeZip([
    { name: '[Content_Types].xml', data: contentTypes },
    { name: '_rels/.rels', data: packageRelationships },
    { name: 'word/document.xml', data: documentXml(paragraphs) },
  ]);
}

/** A DOCX whose document part unpacks to `unpackedBytes` of padding: a zip bomb, honest about its size. */
export function createDocxBomb({
  unpackedBytes,
  isLyingAboutSize = false,
}: {
  unpackedBytes: number;
  isLyingAboutSize?: boolean;
}): Uint8Array {
  const padding = ' '.repeat(unpackedBytes);
  return writeZip([
    { name: '[Content_Types].xml', data: contentTypes },
    { name: '_rels/.rels', data: packageRelationships },
    {
      name: 'word/document.xml',
      data: documentXml([padding]),
      ...(isLyingAboutSize ? { declaredSize: 2_000 } : {}),
    },
  ]);
}

/** An XLSX written by exceljs: one sheet per entry, rows of cells. */
export async function createXlsx(
  sheets: Record<string, readonly (readonly (string | number)[])[]>,
): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow([...row]);
  }
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

/**
 * A PDF of `pageCount` pages that all show one line of text, written by hand (ISO 32000-1, 7.5: header,
 * objects, cross-reference table, trailer): every page shares one content stream and one font, so
 * 10,000 pages take well under a megabyte and a few milliseconds to make.
 */
export function createManyPagePdf({
  pageCount,
  line = 'Quarterly figures, see the table.',
}: {
  pageCount: number;
  line?: string;
}): Uint8Array {
  const content = `BT /F1 12 Tf 20 100 Td (${line}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Count ${pageCount} /Kids [${Array.from({ length: pageCount }, (_, index) => `${index + 5} 0 R`).join(' ')}] >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...Array.from(
      { length: pageCount },
      () =>
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>',
    ),
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

import { getDocumentProxy, renderPageAsImage } from 'unpdf';
import { renderNotice } from '../../notices/render-notice.ts';
import type { ExtractedDocument, ReaderInput } from '../extracted-document.ts';
import { ReadProblem } from './read-problem.ts';
import { createTextBudget } from './text-budget.ts';

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** A page with less text than this (a stray page number at most) has no text layer: it is scanned. */
const scannedPageCharacters = 3;
/** Rendered pages are this wide at most: enough to read print, small enough for a vision model. */
const renderedWidthPx = 1_400;

/**
 * Text of each page, marked `p. N` so answers can cite it, up to the page and character caps. A PDF
 * whose pages have no text layer (a scan) has its first pages rendered as images for a vision model.
 */
export async function readPdf({ bytes, name, limits }: ReaderInput): Promise<ExtractedDocument> {
  const pdf = await openPdf(bytes);
  try {
    const pageCount = pdf.numPages;
    const budget = createTextBudget(limits.maxCharacters);
    let readPageCount = 0;
    for (let pageNumber = 1; pageNumber <= Math.min(pageCount, limits.maxUnits); pageNumber += 1) {
      const text = await pageText(pdf, pageNumber);
      readPageCount = pageNumber;
      if (!budget.add({ location: `p. ${pageNumber}`, text })) break;
    }
    const notes: string[] = [];
    if (readPageCount < pageCount) {
      notes.push(
        renderNotice({
          type: 'pdf-partly-read',
          name,
          readPageCount,
          pageCount,
          isCutByBudget: budget.isCut,
        }),
      );
    }
    const isScanned = budget.sections.every((section) => section.text.trim().length < scannedPageCharacters);
    if (!isScanned) {
      return {
        name,
        kind: 'pdf',
        sections: budget.sections,
        unitCount: pageCount,
        readUnitCount: readPageCount,
        pageImages: [],
        notes,
      };
    }
    const renderedCount = Math.min(pageCount, limits.maxRenderedPages);
    const pageImages = [];
    for (let pageNumber = 1; pageNumber <= renderedCount; pageNumber += 1) {
      pageImages.push({ location: `p. ${pageNumber}`, pngBase64: await renderPage(pdf, pageNumber) });
    }
    if (renderedCount < pageCount) {
      notes.push(renderNotice({ type: 'pdf-scanned', name, renderedCount, pageCount }));
    }
    return {
      name,
      kind: 'pdf',
      sections: [],
      unitCount: pageCount,
      readUnitCount: renderedCount,
      pageImages,
      notes,
    };
  } finally {
    await pdf.loadingTask.destroy();
  }
}

async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  try {
    // pdf.js takes the buffer over; a copy keeps the caller's bytes intact.
    return await getDocumentProxy(new Uint8Array(bytes), { stopAtErrors: false });
  } catch (error) {
    const errorName = (error as { name?: string }).name;
    if (errorName === 'PasswordException') {
      throw new ReadProblem({ reason: 'encrypted', detail: 'pdf needs a password', cause: error });
    }
    throw new ReadProblem({
      reason: 'damaged',
      detail: `pdf.js could not open it: ${errorName}`,
      cause: error,
    });
  }
}

async function pageText(pdf: PdfDocument, pageNumber: number): Promise<string> {
  const page = await pdf.getPage(pageNumber);
  try {
    const content = await page.getTextContent();
    let text = '';
    for (const item of content.items) {
      if (!('str' in item)) continue;
      text += item.str;
      text += item.hasEOL ? '\n' : item.str.endsWith(' ') ? '' : ' ';
    }
    return text
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  } finally {
    page.cleanup();
  }
}

async function renderPage(pdf: PdfDocument, pageNumber: number): Promise<string> {
  const page = await pdf.getPage(pageNumber);
  const widthPt = page.getViewport({ scale: 1 }).width;
  page.cleanup();
  const png = await renderPageAsImage(pdf, pageNumber, {
    canvasImport: () => import('@napi-rs/canvas'),
    scale: Math.min(3, renderedWidthPx / Math.max(widthPt, 1)),
  });
  return Buffer.from(png).toString('base64');
}

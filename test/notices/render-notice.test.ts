import { describe, expect, it } from 'vitest';
import type { Notice } from '../../src/notices/notice.ts';
import { renderNotice } from '../../src/notices/render-notice.ts';

/** One of every notice, as the producers make them. */
const everyNotice: readonly Notice[] = [
  { type: 'image-unreadable', name: 'photo.png' },
  { type: 'image-not-an-image', name: 'notes.txt' },
  { type: 'image-refused', explanation: 'photo.png is over the 10.0 MB limit, so I left it out.' },
  { type: 'model-cannot-see' },
  { type: 'context-trimmed', droppedTurnCount: 12 },
  { type: 'document-cut-for-context', name: 'report.pdf', readUpTo: 'page 12' },
  { type: 'document-cut-for-context', name: 'notes.txt', readUpTo: undefined },
  { type: 'pdf-partly-read', name: 'book.pdf', readPageCount: 40, pageCount: 1_200, isCutByBudget: false },
  { type: 'pdf-partly-read', name: 'book.pdf', readPageCount: 40, pageCount: 1_200, isCutByBudget: true },
  { type: 'pdf-scanned', name: 'scan.pdf', renderedCount: 3, pageCount: 9 },
  { type: 'sheet-partly-read', name: 'data.xlsx', readSheetCount: 2, sheetCount: 5, characterCount: 120_000 },
  { type: 'link-disallowed-by-robots', name: 'example.com/page' },
  { type: 'link-answered-with-error', name: 'example.com/page', status: 503 },
  { type: 'link-refused', name: '10.0.0.1/admin', why: 'it is on a private network' },
  { type: 'link-unreachable', name: 'example.com/page' },
  { type: 'link-unreachable', name: 'example.com/page', cause: 'host-not-found' },
  { type: 'link-unreachable', name: 'example.com/page', cause: 'connection-refused' },
  { type: 'link-too-large', name: 'example.com/video.mp4', maxBytes: 5 * 1024 * 1024 },
  { type: 'page-cut', name: 'example.com/long', maxBytes: 5 * 1024 * 1024 },
  { type: 'search-unavailable' },
  { type: 'tools-unavailable', server: 'github' },
  { type: 'image-option-unsupported', model: 'plain-image-model', option: 'aspect-ratio' },
  { type: 'image-option-unsupported', model: 'plain-image-model', option: 'reference-image' },
];

describe('notices, rendered in one place', () => {
  it('gives every notice one sentence that names what it is about', () => {
    for (const notice of everyNotice) {
      const words = renderNotice(notice);
      expect(words, notice.type).toMatch(/\S.*\.$/s);
      for (const value of Object.values(notice)) {
        if (
          typeof value === 'string' &&
          value !== notice.type &&
          !['aspect-ratio', 'reference-image', 'host-not-found', 'connection-refused'].includes(value)
        ) {
          expect(words, notice.type).toContain(value);
        }
      }
    }
  });

  it('says numbers and sizes as a person reads them', () => {
    expect(renderNotice({ type: 'context-trimmed', droppedTurnCount: 12 })).toBe(
      'The 12 oldest messages of this conversation no longer fit in my context, so I left them out.',
    );
    expect(
      renderNotice({
        type: 'pdf-partly-read',
        name: 'book.pdf',
        readPageCount: 40,
        pageCount: 1_200,
        isCutByBudget: false,
      }),
    ).toBe('book.pdf has 1,200 pages; I read only the first 40.');
    expect(
      renderNotice({ type: 'link-too-large', name: 'example.com/video.mp4', maxBytes: 5 * 1024 * 1024 }),
    ).toBe('I did not read example.com/video.mp4: it is over the 5.0 MB I read of a link.');
  });
});

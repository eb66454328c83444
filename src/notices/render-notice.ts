import { formatSize } from '../format-size.ts';
import type { Notice } from './notice.ts';

/** The words a person reads for a notice: every notice's wording lives here and nowhere else. */
export function renderNotice(notice: Notice): string {
  switch (notice.type) {
    case 'image-unreadable':
      return `I could not read the image ${notice.name}, so I left it out.`;
    case 'image-not-an-image':
      return `${notice.name} is not a PNG, JPEG, GIF or WebP image, so I left it out.`;
    case 'image-refused':
      return notice.explanation;
    case 'model-cannot-see':
      return 'This model cannot see images, so I answered from the text only.';
    case 'context-trimmed':
      return `The ${notice.droppedTurnCount} oldest messages of this conversation no longer fit in my context, so I left them out.`;
    case 'document-cut-for-context':
      return notice.readUpTo
        ? `${notice.name} is longer than fits in my context with this conversation, so I read it up to ${notice.readUpTo}.`
        : `${notice.name} is longer than fits in my context with this conversation, so I read only its beginning.`;
    case 'pdf-partly-read':
      return notice.isCutByBudget
        ? `${notice.name} is long, so I read only its first ${notice.readPageCount} of ${notice.pageCount} pages.`
        : `${notice.name} has ${notice.pageCount.toLocaleString('en-US')} pages; I read only the first ${notice.readPageCount}.`;
    case 'pdf-scanned':
      return `${notice.name} is scanned (it has no text layer), so I looked at its first ${notice.renderedCount} of ${notice.pageCount} pages as images.`;
    case 'sheet-partly-read':
      return `${notice.name} is large, so I read only part of it (${notice.readSheetCount} of ${notice.sheetCount} sheets, up to ${notice.characterCount.toLocaleString('en-US')} characters).`;
    case 'link-disallowed-by-robots':
      return `I did not read ${notice.name}: the site's robots.txt asks bots like me not to.`;
    case 'link-answered-with-error':
      return `I could not read ${notice.name} (the site answered ${notice.status}).`;
    case 'link-refused':
      return `I did not read ${notice.name}: ${notice.why}.`;
    case 'link-unreachable':
      if (notice.cause === 'host-not-found')
        return `I could not read ${notice.name}: its host name has no address (no such site).`;
      if (notice.cause === 'connection-refused')
        return `I could not read ${notice.name}: the site refused the connection.`;
      return `I could not read ${notice.name} (the site did not answer in time, or the connection failed).`;
    case 'link-too-large':
      return `I did not read ${notice.name}: it is over the ${formatSize(notice.maxBytes)} I read of a link.`;
    case 'page-cut':
      return `${notice.name} is longer than the ${formatSize(notice.maxBytes)} I read of a page, so I read only its start.`;
    case 'search-unavailable':
      return 'Web search is unavailable right now (the search service did not answer), so I answered without it.';
    case 'tools-unavailable':
      return `The ${notice.server} tools are unavailable right now (their server is down), so I answered without them.`;
    case 'image-option-unsupported':
      return notice.option === 'aspect-ratio'
        ? `The image model ${notice.model} has no aspect ratio setting, so I used its default shape.`
        : `The image model ${notice.model} cannot use a reference image, so I drew from the prompt only.`;
  }
}

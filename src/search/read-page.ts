import { renderDocument } from '../documents/document-context.ts';
import type { DocumentReader } from '../documents/document-reader.ts';
import type { LinkReader } from '../links/link-reader.ts';
import type { ReadPage } from './search-tools.ts';

/** Characters of one page a `read_url` call gives the model: a long article, not a whole book. */
const maxPageCharacters = 12_000;

/**
 * `read_url` reads like a link in a message: robots.txt, the guarded fetch, the document reader
 * (so a PDF result is read with its page markers), each page kept by hash.
 */
export function createReadPage({
  links,
  documents,
}: {
  links: LinkReader;
  documents: DocumentReader;
}): ReadPage {
  return async ({ url, signal }) => {
    const finding = await links.readLink({ url, ...(signal ? { signal } : {}) });
    if (finding.kind === 'refused') return { problem: finding.notice };
    if (finding.kind === 'image') return { problem: 'the link is an image, which this tool cannot show.' };
    const read = await documents.read(finding.document);
    if ('problem' in read) return { problem: read.problem };
    return {
      title: read.document.title ?? read.document.name,
      text: renderDocument(read.document, maxPageCharacters).text,
    };
  };
}

import { renderDocument } from '../documents/document-context.ts';
import type { DocumentReader } from '../documents/document-reader.ts';
import type { LinkReader } from '../links/link-reader.ts';
import { modelFetchPolicy, type UrlPolicy } from '../net/url-policy.ts';
import type { ReadPage } from './search-tools.ts';

/** Characters of one page a `read_url` call gives the model: a long article, not a whole book. */
const maxPageCharacters = 12_000;

/**
 * `read_url` reads like a link in a message: robots.txt, the guarded fetch, the document reader
 * (so a PDF result is read with its page markers), each page kept by hash. Where it may go is
 * stricter: `modelFetchPolicy`, public addresses only, whatever LINK_PRIVATE_ORIGINS opens to people.
 */
export function createReadPage({
  links,
  documents,
  policy = modelFetchPolicy,
}: {
  links: LinkReader;
  documents: DocumentReader;
  /** Only a test gives another: its fake site on loopback stands for a public one. */
  policy?: UrlPolicy;
}): ReadPage {
  return async ({ url, signal }) => {
    const finding = await links.readLink({ url, policy, ...(signal ? { signal } : {}) });
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

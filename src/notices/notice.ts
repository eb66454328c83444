/**
 * Something a person should know about a reply that is not the reply itself: what was left out,
 * cut, or done differently, and why. Producers say what happened as data; render-notice.ts is the
 * one place that turns it into words.
 */
export type Notice =
  // Images attached to a message.
  | { readonly type: 'image-unreadable'; readonly name: string }
  | { readonly type: 'image-not-an-image'; readonly name: string }
  /** The platform said why (an ImageLoadError: too large, no permission…), in words of its own. */
  | { readonly type: 'image-refused'; readonly explanation: string }
  | { readonly type: 'model-cannot-see' }
  // The conversation and its documents in the model's context.
  | { readonly type: 'context-trimmed'; readonly droppedTurnCount: number }
  /** `readUpTo`: the last page or range that fit (`page 12`), when the document has them. */
  | {
      readonly type: 'document-cut-for-context';
      readonly name: string;
      readonly readUpTo: string | undefined;
    }
  | {
      readonly type: 'pdf-partly-read';
      readonly name: string;
      readonly readPageCount: number;
      readonly pageCount: number;
      /** True: the character budget ran out; false: the page limit did. */
      readonly isCutByBudget: boolean;
    }
  | {
      readonly type: 'pdf-scanned';
      readonly name: string;
      readonly renderedCount: number;
      readonly pageCount: number;
    }
  | {
      readonly type: 'sheet-partly-read';
      readonly name: string;
      readonly readSheetCount: number;
      readonly sheetCount: number;
      readonly characterCount: number;
    }
  // Links in a message.
  | { readonly type: 'link-disallowed-by-robots'; readonly name: string }
  | { readonly type: 'link-answered-with-error'; readonly name: string; readonly status: number }
  /** `why`: the guarded fetch's own words for the refusal (a private address, a scheme…). */
  | { readonly type: 'link-refused'; readonly name: string; readonly why: string }
  /** `cause`: what the error said, when it named the address as the problem (src/links/unreachable-cause.ts). */
  | {
      readonly type: 'link-unreachable';
      readonly name: string;
      readonly cause?: 'host-not-found' | 'connection-refused' | undefined;
    }
  | { readonly type: 'link-too-large'; readonly name: string; readonly maxBytes: number }
  | { readonly type: 'page-cut'; readonly name: string; readonly maxBytes: number }
  // Tools and models that could not do all that was asked.
  | { readonly type: 'search-unavailable' }
  /** `server`: an MCP server's name in the tools file, down now, whose tools this reply would have had. */
  | { readonly type: 'tools-unavailable'; readonly server: string }
  | {
      readonly type: 'image-option-unsupported';
      readonly model: string;
      readonly option: 'aspect-ratio' | 'reference-image';
    };

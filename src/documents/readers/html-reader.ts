import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { ExtractedDocument, TextReaderInput } from '../extracted-document.ts';
import { createTextBudget, cutNotes } from './text-budget.ts';

/**
 * A web page's readable part (Readability, as Firefox's Reader View, on linkedom's DOM), with its
 * title; a page Readability finds no article in falls back to the body's text.
 */
export function readHtml({ text, name, limits }: TextReaderInput): ExtractedDocument {
  const { document } = parseHTML(text);
  const fallbackTitle = document.title?.trim() || undefined;
  // A page without <html>/<body> (a fragment, or a page cut short) still has its text at the root.
  const fallbackText = document.body?.textContent || document.documentElement?.textContent || '';
  let title = fallbackTitle;
  let body = fallbackText;
  try {
    const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
      charThreshold: 200,
    }).parse();
    if (article?.textContent && article.textContent.trim().length > 0) {
      title = article.title?.trim() || fallbackTitle;
      body = article.textContent;
    }
  } catch {
    // Readability gives up on some pages; the plain text is still worth reading.
  }
  const budget = createTextBudget(limits.maxCharacters);
  budget.add({ text: tidyText(body) });
  const notes = cutNotes({ name, budget });
  return {
    name,
    kind: 'html',
    ...(title ? { title } : {}),
    sections: budget.sections,
    pageImages: [],
    notes,
  };
}

function tidyText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

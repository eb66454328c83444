import mammoth from 'mammoth';
import type { ExtractedDocument, ReaderInput } from '../extracted-document.ts';
import { ReadProblem } from './read-problem.ts';
import { createTextBudget, cutNotes } from './text-budget.ts';

/** A Word document's text through mammoth; Word has no fixed pages to cite. */
export async function readDocx({ bytes, name, limits }: ReaderInput): Promise<ExtractedDocument> {
  let text: string;
  try {
    text = (await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value;
  } catch (error) {
    throw new ReadProblem({
      reason: 'damaged',
      detail: `mammoth: ${(error as Error).message}`,
      cause: error,
    });
  }
  const budget = createTextBudget(limits.maxCharacters);
  budget.add({ text: text.replace(/\n{3,}/g, '\n\n').trim() });
  const notes = cutNotes({ name, budget });
  return { name, kind: 'docx', sections: budget.sections, pageImages: [], notes };
}

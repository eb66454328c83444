import type { DocumentSection } from '../extracted-document.ts';

/**
 * Collects sections until `maxCharacters`, so a reader stops extracting (and allocating) once the
 * document is longer than anything the model could be given.
 */
export interface TextBudget {
  /** Adds the section, cut when it crosses the budget; false once the budget is spent. */
  add(section: DocumentSection): boolean;
  readonly sections: DocumentSection[];
  readonly isCut: boolean;
  readonly characterCount: number;
}

export function createTextBudget(maxCharacters: number): TextBudget {
  const sections: DocumentSection[] = [];
  let characterCount = 0;
  let isCut = false;
  return {
    add(section) {
      if (isCut) return false;
      const room = maxCharacters - characterCount;
      if (section.text.length > room) {
        isCut = true;
        if (room > 0) sections.push({ ...section, text: section.text.slice(0, room) });
        characterCount = maxCharacters;
        return false;
      }
      sections.push(section);
      characterCount += section.text.length;
      return true;
    },
    sections,
    get isCut() {
      return isCut;
    },
    get characterCount() {
      return characterCount;
    },
  };
}

/** The note for a file cut at the character budget, or none when it was read whole. */
export function cutNotes({ name, budget }: { name: string; budget: TextBudget }): string[] {
  return budget.isCut
    ? [
        `${name} is long, so I read only its first ${budget.characterCount.toLocaleString('en-US')} characters.`,
      ]
    : [];
}

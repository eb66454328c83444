import type { IncomingTurn } from '../conversation/turn.ts';
import type { ToolStep } from '../gateway/chat-types.ts';
import { readTurnDocuments, type TurnDocuments, type TurnReading } from './turn-documents.ts';

/** The reading step's id: one a reply, whatever it reads. */
const readingStepId = 'read-documents';

// A step's title is a glance; a long file name is cut.
const maxNameCharacters = 60;

/**
 * Reads the turn's documents as a step of the reply people can see, since a large PDF or workbook
 * can take seconds before the model is even asked: "📄 reading: report.pdf" while it runs (a task
 * card in Slack's native stream, the status line elsewhere), complete once read, or an error when
 * none could be read (each problem is still a notice of the reply). Only files that need a download
 * and a parse make a step; one kept from before (Regenerate) and plain links do not.
 */
export async function readTurnDocumentsAsStep({
  reading,
  turn,
  signal,
  showStep,
}: {
  reading: TurnReading | undefined;
  turn: IncomingTurn;
  signal?: AbortSignal | undefined;
  showStep: (step: ToolStep) => void;
}): Promise<TurnDocuments> {
  const toRead = (turn.documents ?? []).filter((document) => document.keptHash === undefined);
  const [first] = toRead;
  if (reading === undefined || first === undefined) return readTurnDocuments({ reading, turn, signal });
  const title =
    toRead.length === 1 ? `📄 reading: ${clip(first.name)}` : `📄 reading ${toRead.length} documents`;
  const step = { id: readingStepId, kind: 'work', title } as const;
  showStep({ ...step, status: 'running' });
  try {
    const read = await readTurnDocuments({ reading, turn, signal });
    const [problem] = read.notices;
    showStep(
      read.documents.length === 0 && problem !== undefined
        ? { ...step, status: 'error', detail: problem }
        : { ...step, status: 'complete' },
    );
    return read;
  } catch (error) {
    showStep({ ...step, status: 'error' });
    throw error;
  }
}

function clip(name: string): string {
  return name.length > maxNameCharacters ? `${name.slice(0, maxNameCharacters - 1)}…` : name;
}

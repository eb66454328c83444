/** Why a reader could not read a file; the reason picks the words the person is told. */
export type ReadProblemReason =
  | 'encrypted'
  | 'damaged'
  | 'unsupported'
  | 'presentation'
  | 'unpacks-too-large'
  | 'too-slow'
  | 'too-much-memory'
  | 'empty';

/** Thrown inside the parse worker and sent back as plain data. */
export class ReadProblem extends Error {
  override readonly name = 'ReadProblem';
  readonly reason: ReadProblemReason;
  constructor({ reason, detail, cause }: { reason: ReadProblemReason; detail: string; cause?: unknown }) {
    super(detail, { cause });
    this.reason = reason;
  }
}

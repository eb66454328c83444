import { parseArgs } from 'node:util';

/** What `npm run faults -- …` was asked for. */
export interface FaultRunOptions {
  /** The representative subset CI runs. */
  readonly isShort: boolean;
  /** Only these scenario ids (or areas), when given. */
  readonly only: readonly string[];
  /** Whether to write docs/reliability.md: a full run of every scenario does, unless told not to. */
  readonly isWritingDoc: boolean;
  /** Keep each world's folder: the bots' output and the store. */
  readonly isKeepingLogs: boolean;
}

export function parseFaultRunOptions(argv: readonly string[]): FaultRunOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      short: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true, default: [] },
      'no-doc': { type: 'boolean', default: false },
      'keep-logs': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const only = values.only.flatMap((entry) => entry.split(',')).filter(Boolean);
  return {
    isShort: values.short,
    only,
    isWritingDoc: !values.short && only.length === 0 && !values['no-doc'],
    isKeepingLogs: values['keep-logs'],
  };
}

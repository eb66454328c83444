import type * as NodeSqlite from 'node:sqlite';

const sqliteExperimentalWarningPattern = /^SQLite is an experimental feature/;

/**
 * Loads Node's built-in `node:sqlite` module.
 *
 * Node 22 prints "ExperimentalWarning: SQLite is an experimental feature and might change at any time"
 * the first time the module loads (Node 24 no longer does). parley chose `node:sqlite` on purpose, so
 * the default store needs no server and no native compile, and the warning would only alarm whoever
 * reads the bot's stderr. So exactly that warning is dropped, and only during this synchronous load:
 * every other warning, including any other ExperimentalWarning, still prints as usual.
 */
export function loadNodeSqlite(): typeof NodeSqlite {
  const originalEmitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (isNodeSqliteExperimentalWarning({ warning, typeOrOptions: rest[0] })) return;
    Reflect.apply(originalEmitWarning, process, [warning, ...rest]);
  }) as typeof process.emitWarning;
  try {
    // getBuiltinModule instead of a static import: a static import would load the module (and emit the
    // warning) before any code of ours could run.
    const nodeSqlite: typeof NodeSqlite | undefined = process.getBuiltinModule('node:sqlite');
    if (nodeSqlite === undefined) {
      throw new Error(`parley needs Node.js 22.18 or newer for node:sqlite; this is ${process.version}`);
    }
    return nodeSqlite;
  } finally {
    process.emitWarning = originalEmitWarning;
  }
}

/**
 * Whether a `process.emitWarning(warning, typeOrOptions)` call is Node's one-time notice that
 * `node:sqlite` is experimental.
 */
export function isNodeSqliteExperimentalWarning({
  warning,
  typeOrOptions,
}: {
  warning: string | Error;
  typeOrOptions: unknown;
}): boolean {
  const message = typeof warning === 'string' ? warning : warning.message;
  return (
    warningType({ warning, typeOrOptions }) === 'ExperimentalWarning' &&
    sqliteExperimentalWarningPattern.test(message)
  );
}

function warningType({
  warning,
  typeOrOptions,
}: {
  warning: string | Error;
  typeOrOptions: unknown;
}): unknown {
  if (typeof typeOrOptions === 'string') return typeOrOptions;
  if (typeof typeOrOptions === 'object' && typeOrOptions !== null && 'type' in typeOrOptions) {
    return typeOrOptions.type;
  }
  return warning instanceof Error ? warning.name : undefined;
}

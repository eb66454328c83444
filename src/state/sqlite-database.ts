import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { loadNodeSqlite } from './load-node-sqlite.ts';

const nodeSqlite = loadNodeSqlite();

/** The file name that opens a private database in memory instead of a file. */
export const inMemorySqliteFilePath = ':memory:';

/** How often an idle database checks that its file is still the one it opened. */
const fileCheckIntervalMs = 5_000;

/** The prepared statements of the one table every namespace shares. */
export type SqliteStatements = ReturnType<typeof prepareStatements>;

/** One connection to one database file, shared by every store (namespace) on that file. */
export interface SqliteDatabase {
  readonly filePath: string;
  /** The statements of the connection as it is now; valid until the next call to `ensureFile`. */
  statements(): SqliteStatements;
  /**
   * Checks that the file on disk is still the one the connection has open, before a write. A file
   * deleted while parley runs is written anew from the open connection (nothing is lost); a file
   * replaced by another (a restored backup) is opened instead. Says what happened, for the log.
   */
  ensureFile(): string | undefined;
  /**
   * Runs a write now, inside the transaction this turn of the event loop's writes share, and settles
   * once that transaction is committed (see `WriteGroup`). Reads on the connection see the write at
   * once; other connections see it after the commit, within the same turn.
   */
  write<Result>(run: (statements: SqliteStatements) => Result): Promise<Result>;
  /** Called with a description each time the file had to be restored or reopened. */
  onFileTrouble(listener: (description: string) => void): () => void;
  /**
   * Gives the pages of deleted rows back to the file system (incremental vacuum) and empties the
   * write-ahead log. A file made before auto_vacuum was on is rebuilt once (a full VACUUM) to turn
   * it on. Says how big the file was and is.
   */
  reclaimSpace(): SpaceReclaimed;
  /** Gives up this user's share; the connection closes with the last one. */
  release(): void;
}

/** What reclaiming space did to the database file, in bytes (the file and its write-ahead log). */
export interface SpaceReclaimed {
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /** True when the file had to be rebuilt once to turn incremental vacuum on. */
  readonly wasRebuilt: boolean;
}

interface SharedConnection {
  database: DatabaseSync;
  statements: SqliteStatements;
  identity: FileIdentity | undefined;
  users: number;
  readonly listeners: Set<(description: string) => void>;
  readonly timer: ReturnType<typeof setInterval> | undefined;
  /** The writes of this turn of the event loop, in one open transaction until it is committed. */
  group: WriteGroup | undefined;
}

/**
 * Group commit: every write made in one turn of the event loop (a reply's spend counters, history
 * and journal, and those of every other reply that wrote meanwhile) runs inside one transaction,
 * committed once the turn's callbacks have run (`setImmediate`). A commit per write was most of what
 * a write cost (200 replies at once: about 4,600 upserts, each its own WAL commit; docs/benchmarks.md,
 * issue 24). Each write settles only after its commit, so whoever awaits a write still knows it is
 * on disk before going on (the reply journal before a post, for one): a crash before the commit loses
 * only writes nobody was told had happened.
 */
interface WriteGroup {
  readonly waiters: Array<{ readonly resolve: () => void; readonly reject: (error: unknown) => void }>;
}

interface FileIdentity {
  readonly device: number;
  readonly inode: number;
}

const connections = new Map<string, SharedConnection>();

/**
 * Opens (or joins) the connection to `filePath`. Every store of a file shares one connection, so
 * the stores see each other's writes at once and a file deleted underneath them is restored once,
 * from the one connection that holds all of its data.
 */
export function openSqliteDatabase({
  filePath,
  busyTimeoutMs,
}: {
  filePath: string;
  busyTimeoutMs: number;
}): SqliteDatabase {
  const isInMemory = filePath === inMemorySqliteFilePath;
  // A private in-memory database per store: ":memory:" is never shared.
  let shared = isInMemory ? undefined : connections.get(filePath);
  if (shared === undefined) {
    const database = openFile(filePath, busyTimeoutMs);
    const listeners = new Set<(description: string) => void>();
    const timer = isInMemory
      ? undefined
      : setInterval(() => {
          const description = ensureFileInPlace(filePath, busyTimeoutMs);
          if (description !== undefined) for (const listener of listeners) listener(description);
        }, fileCheckIntervalMs);
    timer?.unref();
    shared = {
      database,
      statements: prepareStatements(database),
      identity: isInMemory ? undefined : identityOf(filePath),
      users: 0,
      listeners,
      timer,
      group: undefined,
    };
    if (!isInMemory) connections.set(filePath, shared);
  }
  shared.users += 1;
  const connection = shared;
  let isReleased = false;
  const ensureFile = () => {
    if (isInMemory) return undefined;
    const description = ensureFileInPlace(filePath, busyTimeoutMs);
    if (description !== undefined) for (const listener of connection.listeners) listener(description);
    return description;
  };
  return {
    filePath,
    statements: () => connection.statements,
    ensureFile,
    write(run) {
      // The file is checked once per transaction: every write of it commits together.
      if (connection.group === undefined) ensureFile();
      return writeInGroup(connection, run);
    },
    reclaimSpace() {
      commitGroup(connection);
      return reclaimSpace(connection.database, isInMemory ? undefined : filePath);
    },
    onFileTrouble(listener) {
      connection.listeners.add(listener);
      return () => connection.listeners.delete(listener);
    },
    release() {
      if (isReleased) return;
      isReleased = true;
      connection.users -= 1;
      if (connection.users > 0) return;
      commitGroup(connection);
      clearInterval(connection.timer);
      if (connections.get(filePath) === connection) connections.delete(filePath);
      connection.database.close();
    },
  };
}

function writeInGroup<Result>(
  connection: SharedConnection,
  run: (statements: SqliteStatements) => Result,
): Promise<Result> {
  try {
    if (connection.group === undefined) {
      // IMMEDIATE takes the write lock now, waiting up to busy_timeout for another process, as an
      // autocommit write would; a deferred transaction could fail to upgrade without waiting.
      connection.database.exec('BEGIN IMMEDIATE');
      const group: WriteGroup = { waiters: [] };
      connection.group = group;
      setImmediate(() => {
        if (connection.group === group) commitGroup(connection);
      });
    }
    const result = run(connection.statements);
    const group = connection.group;
    return new Promise<Result>((resolve, reject) => {
      group.waiters.push({ resolve: () => resolve(result), reject });
    });
  } catch (error) {
    // A statement that failed alone left the transaction open for the others; one that made SQLite
    // roll the transaction back (a full disk, say) took the others' writes with it.
    if (connection.group !== undefined && !connection.database.isTransaction) {
      failGroup(connection, error);
    }
    return Promise.reject(error);
  }
}

/** Commits the open write group, if any, and settles its writes. */
function commitGroup(connection: SharedConnection): void {
  const group = connection.group;
  if (group === undefined) return;
  try {
    connection.database.exec('COMMIT');
  } catch (error) {
    failGroup(connection, error);
    return;
  }
  connection.group = undefined;
  for (const waiter of group.waiters) waiter.resolve();
}

function failGroup(connection: SharedConnection, error: unknown): void {
  const group = connection.group;
  connection.group = undefined;
  try {
    if (connection.database.isTransaction) connection.database.exec('ROLLBACK');
  } catch {
    // The commit's own error is the one worth telling; a rollback that fails too changes nothing.
  } finally {
    for (const waiter of group?.waiters ?? []) waiter.reject(error);
  }
}

function ensureFileInPlace(filePath: string, busyTimeoutMs: number): string | undefined {
  const connection = connections.get(filePath);
  if (connection === undefined) return undefined;
  const onDisk = identityOf(filePath);
  if (onDisk !== undefined && sameIdentity(onDisk, connection.identity)) return undefined;
  // The connection is about to close: what this turn wrote goes into the file it was written for.
  commitGroup(connection);
  if (onDisk === undefined) {
    restoreDeletedFile(connection, filePath);
    reopen(connection, filePath, busyTimeoutMs);
    return `the SQLite file ${filePath} was deleted while parley ran; it was written anew from the open connection, with nothing lost`;
  }
  // Someone put another file in its place (a restored backup, say): that file is the store now.
  closeEmptyingLog(connection.database);
  reopen(connection, filePath, busyTimeoutMs);
  return `the SQLite file ${filePath} was replaced while parley ran; the new file is used from now on`;
}

/**
 * The connection still holds the deleted file (its inode lives while it is open), so a copy of it is
 * written beside the path and moved into place once the connection is closed.
 */
function restoreDeletedFile(connection: SharedConnection, filePath: string): void {
  const restoringPath = `${filePath}.restoring-${process.pid}`;
  // The whole folder may have gone with it.
  mkdirSync(dirname(filePath), { recursive: true });
  rmSync(restoringPath, { force: true });
  connection.database.exec(`VACUUM INTO '${restoringPath.replaceAll("'", "''")}'`);
  closeEmptyingLog(connection.database);
  renameSync(restoringPath, filePath);
}

/**
 * The old file's write-ahead log sits at the same path as the new file's will (`<file>-wal`), and
 * SQLite does not remove it when the file it belongs to was unlinked: left full, its pages would be
 * read into the new file. A TRUNCATE checkpoint moves them into the old file and empties the log.
 */
function closeEmptyingLog(database: DatabaseSync): void {
  database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  database.close();
}

function reopen(connection: SharedConnection, filePath: string, busyTimeoutMs: number): void {
  connection.database = openFile(filePath, busyTimeoutMs);
  connection.statements = prepareStatements(connection.database);
  connection.identity = identityOf(filePath);
}

function openFile(filePath: string, busyTimeoutMs: number): DatabaseSync {
  if (filePath !== inMemorySqliteFilePath) mkdirSync(dirname(filePath), { recursive: true });
  let database: DatabaseSync | undefined;
  try {
    database = new nodeSqlite.DatabaseSync(filePath);
    prepareFile(database, busyTimeoutMs);
    return database;
  } catch (error) {
    database?.close();
    if (filePath === inMemorySqliteFilePath) throw error;
    // SQLite's own words ("file is not a database") do not say which file, nor what to do.
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the SQLite file ${filePath} cannot be opened (${reason}); move it away or restore a backup, or set STORE_URL`,
      { cause: error },
    );
  }
}

function prepareFile(database: DatabaseSync, busyTimeoutMs: number): void {
  // WAL lets readers and the writer proceed together and survives a crash mid-write; with WAL,
  // synchronous=NORMAL loses at most the last commits on power loss, never on a process crash,
  // which is the right trade for chat history written on every turn.
  // Incremental vacuum lets the retention sweep give freed pages back without rebuilding the file;
  // it can only be chosen before the first table exists (older files are converted once, below).
  database.exec(`
    PRAGMA auto_vacuum = INCREMENTAL;
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))};
    CREATE TABLE IF NOT EXISTS entries (
      key TEXT PRIMARY KEY NOT NULL,
      value TEXT NOT NULL,
      expires INTEGER NULL
    );
    CREATE INDEX IF NOT EXISTS entries_expires ON entries (expires) WHERE expires IS NOT NULL;
  `);
}

/** SQLite's auto_vacuum values: 0 none, 1 full, 2 incremental. */
const incrementalAutoVacuum = 2;

function reclaimSpace(database: DatabaseSync, filePath: string | undefined): SpaceReclaimed {
  const bytesBefore = fileBytes(filePath);
  const mode = Number(database.prepare('PRAGMA auto_vacuum').get()?.auto_vacuum ?? 0);
  const wasRebuilt = mode !== incrementalAutoVacuum;
  if (wasRebuilt) {
    // The mode of an existing file changes only with a full rebuild; it happens once per file.
    database.exec(`PRAGMA auto_vacuum = INCREMENTAL; VACUUM;`);
  } else {
    database.exec('PRAGMA incremental_vacuum');
  }
  // Freed pages leave the main file at the next checkpoint; TRUNCATE also empties the log itself.
  database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  return { bytesBefore, bytesAfter: fileBytes(filePath), wasRebuilt };
}

function fileBytes(filePath: string | undefined): number {
  if (filePath === undefined) return 0;
  let total = 0;
  for (const path of [filePath, `${filePath}-wal`]) {
    try {
      total += statSync(path).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return total;
}

function identityOf(filePath: string): FileIdentity | undefined {
  try {
    const stats = statSync(filePath);
    return { device: stats.dev, inode: stats.ino };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function sameIdentity(left: FileIdentity, right: FileIdentity | undefined): boolean {
  return right !== undefined && left.device === right.device && left.inode === right.inode;
}

function prepareStatements(database: DatabaseSync) {
  const prepare = (sql: string): StatementSync => database.prepare(sql);
  return {
    select: prepare('SELECT key, value, expires FROM entries WHERE key = ?'),
    upsert: prepare(
      `INSERT INTO entries (key, value, expires) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
    ),
    delete: prepare('DELETE FROM entries WHERE key = ?'),
    deleteIfExpired: prepare('DELETE FROM entries WHERE key = ? AND expires IS NOT NULL AND expires < ?'),
    deleteAllExpired: prepare('DELETE FROM entries WHERE expires IS NOT NULL AND expires < ?'),
    deleteRange: prepare('DELETE FROM entries WHERE key >= ? AND key < ?'),
    deleteAll: prepare('DELETE FROM entries'),
    selectRange: prepare('SELECT key, value, expires FROM entries WHERE key >= ? AND key < ? ORDER BY key'),
    selectAll: prepare('SELECT key, value, expires FROM entries ORDER BY key'),
  };
}

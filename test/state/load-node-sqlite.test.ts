import { describe, expect, it } from 'vitest';
import { isNodeSqliteExperimentalWarning, loadNodeSqlite } from '../../src/state/load-node-sqlite.ts';

const sqliteWarning = 'SQLite is an experimental feature and might change at any time';

describe('loadNodeSqlite', () => {
  it('returns a working node:sqlite and puts process.emitWarning back', () => {
    const emitWarningBefore = process.emitWarning;
    const { DatabaseSync } = loadNodeSqlite();
    expect(process.emitWarning).toBe(emitWarningBefore);
    const database = new DatabaseSync(':memory:');
    expect(database.prepare('SELECT 1 + 1 AS sum').get()).toEqual({ sum: 2 });
    database.close();
  });
});

describe('isNodeSqliteExperimentalWarning', () => {
  it("recognises Node's notice in each way emitWarning can be called", () => {
    expect(
      isNodeSqliteExperimentalWarning({ warning: sqliteWarning, typeOrOptions: 'ExperimentalWarning' }),
    ).toBe(true);
    expect(
      isNodeSqliteExperimentalWarning({
        warning: sqliteWarning,
        typeOrOptions: { type: 'ExperimentalWarning' },
      }),
    ).toBe(true);
    const asError = Object.assign(new Error(sqliteWarning), { name: 'ExperimentalWarning' });
    expect(isNodeSqliteExperimentalWarning({ warning: asError, typeOrOptions: undefined })).toBe(true);
  });

  it('lets every other warning through', () => {
    expect(
      isNodeSqliteExperimentalWarning({
        warning: 'VM Modules is an experimental feature and might change at any time',
        typeOrOptions: 'ExperimentalWarning',
      }),
    ).toBe(false);
    expect(
      isNodeSqliteExperimentalWarning({ warning: sqliteWarning, typeOrOptions: 'DeprecationWarning' }),
    ).toBe(false);
    expect(isNodeSqliteExperimentalWarning({ warning: sqliteWarning, typeOrOptions: undefined })).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/access/actor.ts';
import { isOutageForThisPerson } from '../../src/tools/tool-governance.ts';
import { createToolbox } from '../../src/tools/toolbox.ts';
import { testTool } from '../support/test-tools.ts';

/**
 * Whose business a server's outage is: the rules that would have offered its tools (TOOLS at the
 * place, TOOL_ROLE_IDS), applied to the tools it had when last up, or to its name before it ever
 * listed any. The end-to-end story is in tool-outages.test.ts.
 */
const member: Actor = { id: 'U1', name: 'ada', roleIds: ['R1'], isAdmin: false, context: 'server' };
const rulesOf = (patterns: string[], roleIds: Record<string, string[]> = {}) => ({
  tools: { patterns, roleIds },
  memory: 'off' as const,
});

describe('a down server in the toolbox', () => {
  it('keeps the tools it had, leaves all() while down, and ends its outage when it lists again', () => {
    const toolbox = createToolbox();
    const echo = testTool({ name: 'github_echo', source: 'github' });
    toolbox.replace('github', [echo]);
    toolbox.markDown('github');
    expect(toolbox.all()).toEqual([]);
    expect(toolbox.outages()).toEqual([{ source: 'github', lastTools: [echo] }]);
    // Down again before it listed anything: what it had still stands.
    toolbox.markDown('github');
    expect(toolbox.outages()).toEqual([{ source: 'github', lastTools: [echo] }]);
    toolbox.replace('github', [echo]);
    expect(toolbox.outages()).toEqual([]);
    expect(toolbox.all()).toEqual([echo]);
  });
});

describe('whose business an outage is', () => {
  const listed = {
    source: 'github',
    lastTools: [
      testTool({ name: 'github_read', source: 'github' }),
      testTool({ name: 'github_write', source: 'github' }),
    ],
  };
  const neverUp = { source: 'github', lastTools: [] };
  const judge = (outage: typeof listed, settings: ReturnType<typeof rulesOf>, actor = member) =>
    isOutageForThisPerson({ outage, settings, actor });

  it('is by its last tools: one of them this person would have had here is enough', () => {
    expect(judge(listed, rulesOf(['*']))).toBe(true);
    expect(judge(listed, rulesOf(['github_write']))).toBe(true);
    expect(judge(listed, rulesOf(['web_search', 'files_*']))).toBe(false);
    expect(judge(listed, rulesOf(['github_*'], { github_read: ['R9'], github_write: ['R9'] }))).toBe(false);
    expect(judge(listed, rulesOf(['github_*'], { github_read: ['R9'], github_write: ['R1'] }))).toBe(true);
    expect(
      judge(listed, rulesOf(['github_*'], { github_read: ['R9'], github_write: ['R9'] }), {
        ...member,
        isAdmin: true,
      }),
    ).toBe(true);
  });

  it('is by its name before it ever listed a tool', () => {
    expect(judge(neverUp, rulesOf(['*']))).toBe(true);
    expect(judge(neverUp, rulesOf(['github_*']))).toBe(true);
    expect(judge(neverUp, rulesOf(['git*']))).toBe(true);
    expect(judge(neverUp, rulesOf(['github_issues_*']))).toBe(true);
    expect(judge(neverUp, rulesOf(['github_read']))).toBe(true);
    expect(judge(neverUp, rulesOf(['github_read'], { github_read: ['R9'] }))).toBe(false);
    expect(judge(neverUp, rulesOf(['gitlab_*', 'web_search']))).toBe(false);
    expect(judge(neverUp, rulesOf([]))).toBe(false);
  });
});

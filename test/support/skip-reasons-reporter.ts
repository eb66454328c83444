import type { Reporter, TestCase, TestModule } from 'vitest/node';

/**
 * Ends `npm test` with why tests were skipped and what turns them on. A suite that skips on purpose
 * says so in its name: `redis:// store (skipped: REDIS_URL is not set; run with REDIS_URL=…)`; the
 * default summary only counts skipped tests, this names the reasons.
 */
export function createSkipReasonsReporter(): Reporter {
  return {
    onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
      const countsByReason = new Map<string, number>();
      for (const testModule of testModules) {
        for (const testCase of testModule.children.allTests('skipped')) {
          const reason = skipReasonOf(testCase);
          if (reason) countsByReason.set(reason, (countsByReason.get(reason) ?? 0) + 1);
        }
      }
      for (const [reason, count] of countsByReason) {
        process.stdout.write(` Skipped ${count} test${count === 1 ? '' : 's'}: ${reason}\n`);
      }
    },
  };
}

function skipReasonOf(testCase: TestCase): string | undefined {
  for (let node: TestCase['parent'] | TestCase = testCase; node.type !== 'module'; node = node.parent) {
    const reason = /\(skipped: (.+)\)\s*$/.exec(node.name)?.[1];
    if (reason) return `${node.name.replace(/\s*\(skipped: .+\)\s*$/, '')}: ${reason}`;
  }
  return undefined;
}

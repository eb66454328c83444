import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { toolsOfServer } from '../../src/tools/mcp-tool.ts';
import type { McpServerSettings } from '../../src/tools/tools-file.ts';

/** A server's tools take their own price from the tools file where it names one, the server's otherwise. */
describe('prices of an MCP server’s tools', () => {
  it('gives a tool its own price and the others the server’s', () => {
    const settings: McpServerSettings = {
      name: 'github',
      transport: { kind: 'http', url: 'https://mcp.example/mcp', headers: {}, auth: undefined },
      enabledTools: undefined,
      annotationOverrides: {},
      priceNanos: 1_000_000,
      priceNanosByTool: { create_issue: 50_000_000 },
      deadlineMs: 30_000,
      maxResultCharacters: 20_000,
      variables: [],
    };
    const listing = (name: string) => ({ name, inputSchema: { type: 'object' as const } });
    const tools = toolsOfServer({
      settings,
      listed: [listing('create_issue'), listing('search_issues')],
      call: async () => ({ text: 'done' }),
      logger: pino({ level: 'silent' }),
    });
    expect(tools.map((tool) => [tool.name, tool.priceNanos])).toEqual([
      ['github_create_issue', 50_000_000],
      ['github_search_issues', 1_000_000],
    ]);
  });
});

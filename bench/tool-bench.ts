import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import type { ChatRequest, ChatStreamEvent } from '../src/gateway/chat-types.ts';
import type { Gateway } from '../src/gateway/gateway-client.ts';
import { type ModelCapabilities, modelCatalogSchema } from '../src/gateway/model-catalog.ts';
import { createSources } from '../src/search/sources.ts';
import { startMcpServers } from '../src/tools/mcp-servers.ts';
import type { Tool, ToolRunContext } from '../src/tools/tool.ts';
import { streamWithTools } from '../src/tools/tool-loop.ts';
import { createToolbox } from '../src/tools/toolbox.ts';
import type { McpServerSettings } from '../src/tools/tools-file.ts';
import { everythingServer, filesystemServer, waitUntil } from '../test/support/mcp-test-servers.ts';
import { createTestSpending } from '../test/support/test-spending.ts';
import { describeMachine, machineLine } from './machine.ts';
import { readMachineCpuSeconds, readMemory } from './process-stats.ts';
import { percentile } from './statistics.ts';

/**
 * `npm run bench -- --tools`: what MCP servers and the tool loop cost (issue 25).
 *
 * 1. An MCP call's round trip over stdio: server-everything's `echo`, called through the Tool parley
 *    makes of it (the official SDK client, JSON-RPC over the child's pipes, the result made text).
 * 2. The tool loop's own time per round, beyond the tool's: a reply of two tool rounds and an answer,
 *    the model played in process (its events ready at once) so that what is measured is the loop,
 *    from the end of a round's stream to the start of the next one's, less the tool's run.
 * 3. Memory with five servers connected: parley's RSS and heap before and after, and the servers'.
 */
const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--tools'),
  options: {
    calls: { type: 'string', default: '2000' },
    replies: { type: 'string', default: '1000' },
  },
});
// Garbage is collected before each memory reading, so the readings compare live memory.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const callCount = Number(values.calls);
const replyCount = Number(values.replies);
const logger = pino({ level: 'silent' });
const write = (text: string) => process.stdout.write(text);
const format = (value: number | undefined, digits = 2) => (value === undefined ? '—' : value.toFixed(digits));
const mebibytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

const common = {
  enabledTools: undefined,
  annotationOverrides: {},
  priceNanos: 0,
  priceNanosByTool: {},
  deadlineMs: 30_000,
  maxResultCharacters: 20_000,
  variables: [],
} satisfies Partial<McpServerSettings>;
const stdioServer = (name: string, script: string, ...args: string[]): McpServerSettings => ({
  ...common,
  name,
  transport: { kind: 'stdio', command: process.execPath, args: [script, ...args], env: {}, cwd: undefined },
});

write(`parley tool bench on ${machineLine(describeMachine())}\n`);
const machineBefore = readMachineCpuSeconds();
const wallBefore = performance.now();
const selfBefore = process.cpuUsage();
write(
  `load average at start: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')}\n\n`,
);

// 1. The round trip of one MCP call.
const toolbox = createToolbox();
const one = startMcpServers({
  servers: [stdioServer('everything', everythingServer, 'stdio')],
  toolbox,
  logger,
  clientVersion: 'bench',
});
await waitUntil(() => toolbox.all().some((tool) => tool.name === 'everything_echo'), 30_000);
const echo = toolbox.all().find((tool) => tool.name === 'everything_echo') as Tool;
const context: ToolRunContext = {
  signal: new AbortController().signal,
  actor: { id: 'bench', name: 'bench', roleIds: [], isAdmin: true, context: 'terminal' },
  conversationKey: 'console:local:bench',
  sources: createSources(),
  notices: [],
  logger,
};
for (let warm = 0; warm < 200; warm += 1) await echo.run({ arguments: { message: 'warm' }, context });
const roundTrips: number[] = [];
for (let call = 0; call < callCount; call += 1) {
  const started = performance.now();
  const output = await echo.run({ arguments: { message: `call ${call}` }, context });
  roundTrips.push(performance.now() - started);
  if (output.text !== `Echo: call ${call}`) throw new Error(`echo answered ${output.text}`);
}
write(
  `MCP stdio round trip (everything echo, ${callCount} calls one after another): p50 ${format(percentile(roundTrips, 0.5))} ms, ` +
    `p95 ${format(percentile(roundTrips, 0.95))} ms, p99 ${format(percentile(roundTrips, 0.99))} ms\n`,
);

// 2. The loop's time per round beyond the tool's, with the echo tool.
const toolTimes: number[] = [];
const timedEcho: Tool = {
  ...echo,
  async run(request) {
    const started = performance.now();
    try {
      return await echo.run(request);
    } finally {
      toolTimes.push(performance.now() - started);
    }
  },
};
let roundEndedAt: number | undefined;
const loopGaps: number[] = [];
const model = 'bench-tools-model';
const capabilities: ModelCapabilities = {
  vision: false,
  jsonSchema: true,
  imageUrlOutput: false,
  imageInput: false,
  imageInputDataUri: false,
  aspectRatio: false,
  contextTokens: 128_000,
  tools: true,
};
const finish: ChatStreamEvent = {
  type: 'finish',
  finishReason: 'stop',
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
};
// The model, in process: a round offered tools calls echo once; the last round answers.
const inProcessModel: Pick<Gateway, 'chatStream' | 'capabilitiesOf'> = {
  capabilitiesOf: () => capabilities,
  async *chatStream(request: ChatRequest) {
    if (roundEndedAt !== undefined) {
      const tool = toolTimes.at(-1) ?? 0;
      loopGaps.push(performance.now() - roundEndedAt - tool);
      roundEndedAt = undefined;
    }
    if (request.tools === undefined) {
      yield { type: 'text-delta', text: 'answered' };
      yield finish;
      return;
    }
    yield {
      type: 'tool-calls',
      calls: [{ id: `call_${loopGaps.length}`, name: echo.name, arguments: '{"message":"round"}' }],
    };
    roundEndedAt = performance.now();
    yield finish;
  },
};
const catalog = modelCatalogSchema.parse(
  JSON.parse(readFileSync(new URL('../config/models.json', import.meta.url), 'utf8')),
);
const spending = createTestSpending({ catalog, logger });
const hold = await spending.holdFor(model);
const runReply = async () => {
  const loop = streamWithTools({
    gateway: inProcessModel as Gateway,
    chat: { model, messages: [{ role: 'user', content: 'go' }], maxTokens: 100, hold },
    tools: [timedEcho],
    limits: { perRound: 3, perReply: 6 },
    context,
    askApproval: undefined,
    logger,
  });
  for (let next = await loop.next(); !next.done; next = await loop.next()) {
    // Each event is consumed as a reply consumes it.
  }
};
for (let warm = 0; warm < 100; warm += 1) await runReply();
loopGaps.length = 0;
toolTimes.length = 0;
for (let reply = 0; reply < replyCount; reply += 1) await runReply();
write(
  `tool loop per round beyond the tool (${loopGaps.length} rounds, ${replyCount} replies): p50 ${format(percentile(loopGaps, 0.5), 3)} ms, ` +
    `p95 ${format(percentile(loopGaps, 0.95), 3)} ms, p99 ${format(percentile(loopGaps, 0.99), 3)} ms ` +
    `(the echo itself: p50 ${format(percentile(toolTimes, 0.5))} ms)\n`,
);
await one.close();
await spending.close();

// 3. Memory with five servers connected.
collectGarbage();
const before = process.memoryUsage();
const fiveToolbox = createToolbox();
const folder = mkdtempSync(`${tmpdir()}/parley-bench-files-`);
const five = startMcpServers({
  servers: [
    stdioServer('everything-a', everythingServer, 'stdio'),
    stdioServer('everything-b', everythingServer, 'stdio'),
    stdioServer('everything-c', everythingServer, 'stdio'),
    stdioServer('files-a', filesystemServer, folder),
    stdioServer('files-b', filesystemServer, folder),
  ],
  toolbox: fiveToolbox,
  logger,
  clientVersion: 'bench',
});
await waitUntil(() => five.states().every((state) => state.status === 'up' && state.toolCount > 0), 60_000);
await new Promise((resolve) => setTimeout(resolve, 1_000));
collectGarbage();
const after = process.memoryUsage();
const children = five.states().map((state) => readMemory(state.pid ?? 0).rssBytes);
write(
  `five servers connected (${fiveToolbox.all().length} tools): parley RSS ${mebibytes(before.rss)} → ${mebibytes(after.rss)} ` +
    `(+${mebibytes(after.rss - before.rss)}), heap used ${mebibytes(before.heapUsed)} → ${mebibytes(after.heapUsed)} ` +
    `(+${mebibytes(after.heapUsed - before.heapUsed)}); the five server processes: ${children.map(mebibytes).join(', ')} ` +
    `(${mebibytes(children.reduce((sum, value) => sum + value, 0))} in all)\n`,
);
await five.close();

const seconds = (performance.now() - wallBefore) / 1000;
const machineBusy = readMachineCpuSeconds().busySeconds - machineBefore.busySeconds;
const selfUsage = process.cpuUsage(selfBefore);
const selfSeconds = (selfUsage.user + selfUsage.system) / 1e6;
write(
  `\nmachine while measuring: ${(machineBusy / seconds).toFixed(2)} cores busy on average (this bench itself ${(selfSeconds / seconds).toFixed(2)}, ` +
    `its servers and everything else the rest), load average at the end ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}\n`,
);

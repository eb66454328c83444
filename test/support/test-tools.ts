import type { Tool } from '../../src/tools/tool.ts';
import type { FakeMessage } from '../fakes/discord/index.ts';
import type { FakeGateway } from '../fakes/gateway/index.ts';

/**
 * What the tool tests share: tools of their own, what the fake gateway was sent (the tools offered
 * and the `tool` messages that answered the model's calls), and the buttons of a Discord question.
 */

/** A chat request as the fake gateway recorded it, in the parts the tool tests read. */
export type ChatBody = {
  tools?: Array<{ function: { name: string } }>;
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  }>;
};

/** Every chat completion request the fake gateway received, in order. */
export function chatBodies(gateway: FakeGateway): ChatBody[] {
  return gateway.requests
    .filter((request) => request.path.endsWith('/chat/completions'))
    .map((request) => request.body as ChatBody);
}

/** The names of the tools a request offered the model. */
export function offeredNames(body: ChatBody | undefined): string[] {
  return body?.tools?.map((tool) => tool.function.name) ?? [];
}

/** The texts of a request's `tool` messages: what the model was told each call gave. */
export function toolMessages(body: ChatBody | undefined): string[] {
  return (body?.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
}

/** A read-only tool of the test's own, recording the arguments of each call in `calls`. */
export function testTool(overrides: Partial<Tool> & Pick<Tool, 'name'>, calls: unknown[] = []): Tool {
  return {
    title: overrides.name,
    description: `The test tool ${overrides.name}.`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    annotations: { isReadOnly: true, isDestructive: false, isOpenWorld: false },
    source: 'test',
    priceNanos: 0,
    deadlineMs: 5_000,
    maxResultCharacters: 10_000,
    describeCall: (toolArguments) => `⚙ ${overrides.name} ${JSON.stringify(toolArguments)}`,
    async run({ arguments: toolArguments }) {
      calls.push(toolArguments);
      return { text: `${overrides.name} did ${JSON.stringify(toolArguments)}` };
    },
    ...overrides,
  };
}

/** A read-only tool of the test's own that takes `delayMs` to answer. */
export function slowTool(name: string, delayMs: number): Tool {
  return testTool({
    name,
    inputSchema: { type: 'object', properties: {} },
    maxResultCharacters: 1_000,
    describeCall: () => `⚙ ${name} at work`,
    async run() {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { text: `${name} is done` };
    },
  });
}

/** A tool of the test's own that acts on the world, so each call waits for its asker's yes. */
export function actingTool(name: string, calls: unknown[] = []): Tool {
  return testTool(
    { name, annotations: { isReadOnly: false, isDestructive: true, isOpenWorld: false } },
    calls,
  );
}

/** The custom id of the button labelled `label` under a Discord message. */
export function buttonOf(message: Pick<FakeMessage, 'components'>, label: string): string {
  const match = new RegExp(
    `"label":"${label}"[^}]*"custom_id":"([^"]+)"|"custom_id":"([^"]+)"[^}]*"label":"${label}"`,
  ).exec(JSON.stringify(message.components ?? []));
  return match?.[1] ?? match?.[2] ?? '';
}

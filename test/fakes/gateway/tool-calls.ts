import type { FakeBehaviour } from './behaviour.ts';
import type { ChatRequest } from './request-schemas.ts';

/** A tool call as the OpenAI shape has it in a whole `message.tool_calls`. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A piece of a streamed tool call (`delta.tool_calls[]`): the first names it, the rest add arguments. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

/**
 * The calls a `toolCalls` behaviour scripts, with ids unique to the completion. A model calls only
 * tools it was offered, so a script naming another is a mistake in the test, said loudly.
 */
export function scriptedToolCalls(
  request: ChatRequest,
  behaviour: FakeBehaviour,
  completionId: string,
): ToolCall[] {
  const offered = new Set((request.tools ?? []).map((tool) => tool.function.name));
  return (behaviour.toolCalls ?? []).map((call, index) => {
    if (!offered.has(call.name) && behaviour.callsToolsNotOffered !== true) {
      throw new Error(`fake gateway: the script calls ${call.name}, which the request did not offer`);
    }
    return {
      id: `call_${completionId.replace(/\W/g, '')}_${index}`,
      type: 'function',
      function: {
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      },
    };
  });
}

/**
 * The deltas that stream the calls, as OpenAI streams them: for each call a first delta with its
 * `index`, `id`, `type` and `name` and empty arguments, then the arguments in pieces carrying only the
 * `index` (Chat Completions streaming, `choices[].delta.tool_calls`).
 */
export function toolCallDeltas(calls: readonly ToolCall[], chunkSize = 12): ToolCallDelta[] {
  return calls.flatMap((call, index) => {
    const pieces: ToolCallDelta[] = [
      { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
    ];
    for (let start = 0; start < call.function.arguments.length; start += chunkSize) {
      pieces.push({
        index,
        function: { arguments: call.function.arguments.slice(start, start + chunkSize) },
      });
    }
    return pieces;
  });
}

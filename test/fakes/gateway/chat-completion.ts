import type { FakeBehaviour, Usage } from './behaviour.ts';
import { replyTextFor } from './reply-content.ts';
import type { ChatRequest } from './request-schemas.ts';
import { scriptedToolCalls, type ToolCall } from './tool-calls.ts';
import { unixSeconds } from './unix-time.ts';
import { usageFor } from './usage.ts';

/** The non-streaming response of `POST /chat/completions`, field for field as the reference lists. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] };
    finish_reason: 'stop' | 'length' | 'tool_calls';
  }[];
  usage: Usage;
}

/** Builds the whole completion; `n` variants share the reply text. */
export function createChatCompletion(options: {
  id: string;
  request: ChatRequest;
  behaviour: FakeBehaviour;
}): ChatCompletion {
  const { id, request, behaviour } = options;
  if (behaviour.toolCalls !== undefined) {
    const calls = scriptedToolCalls(request, behaviour, id);
    return {
      id,
      object: 'chat.completion',
      created: unixSeconds(),
      model: request.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: behaviour.text ?? null, tool_calls: calls },
          finish_reason: 'tool_calls',
        },
      ],
      usage: usageFor({
        request,
        replyTexts: [
          ...(behaviour.text === undefined ? [] : [behaviour.text]),
          ...calls.map((call) => call.function.arguments),
        ],
        override: behaviour.usage,
      }),
    };
  }
  const text = replyTextFor(request, behaviour);
  const variantCount = request.n ?? 1;
  return {
    id,
    object: 'chat.completion',
    created: unixSeconds(),
    model: request.model,
    choices: Array.from({ length: variantCount }, (_, index) => ({
      index,
      message: { role: 'assistant', content: text },
      finish_reason: behaviour.finishReason ?? 'stop',
    })),
    usage: usageFor({
      request,
      replyTexts: Array.from({ length: variantCount }, () => text),
      override: behaviour.usage,
    }),
  };
}

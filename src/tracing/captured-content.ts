import type { ChatMessage, ToolCall } from '../gateway/chat-types.ts';
import { redactSecrets } from '../secrets/secret-detector.ts';
import { knownSecrets } from './tracer.ts';

/**
 * Prompts and completions as the GenAI conventions record them (`gen_ai.input.messages`,
 * `gen_ai.output.messages`: JSON of roles and parts), for `OTEL_GENAI_CAPTURE_CONTENT=on` only.
 * Every text goes through the secret detector the logs use first; images are named, not copied.
 */

/** A part longer than this is cut: a trace backend is not where a 100-page document belongs. */
const maxPartCharacters = 16_000;

type Part =
  | { readonly type: 'text'; readonly content: string }
  | { readonly type: 'image' }
  | { readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly arguments: string }
  | { readonly type: 'tool_call_response'; readonly id: string; readonly response: string };

function scrubbed(text: string): string {
  const cut = text.length > maxPartCharacters ? `${text.slice(0, maxPartCharacters)}… (cut)` : text;
  return redactSecrets({ text: cut, knownValues: knownSecrets() });
}

function partsOf(message: ChatMessage): Part[] {
  const content: Part[] =
    typeof message.content === 'string'
      ? message.content === ''
        ? []
        : [message.role === 'tool' ? toolResponse(message, message.content) : textPart(message.content)]
      : message.content.map((part) =>
          part.type === 'text' ? textPart(part.text) : { type: 'image' as const },
        );
  return [...content, ...(message.toolCalls ?? []).map(toolCallPart)];
}

const textPart = (text: string): Part => ({ type: 'text', content: scrubbed(text) });

const toolResponse = (message: ChatMessage, text: string): Part => ({
  type: 'tool_call_response',
  id: message.toolCallId ?? '',
  response: scrubbed(text),
});

const toolCallPart = (call: ToolCall): Part => ({
  type: 'tool_call',
  id: call.id,
  name: call.name,
  arguments: scrubbed(call.arguments),
});

/** The request's messages, system prompt first, as `gen_ai.input.messages`. */
export function capturedInput(messages: readonly ChatMessage[]): string {
  return JSON.stringify(messages.map((message) => ({ role: message.role, parts: partsOf(message) })));
}

/** What the model answered, as `gen_ai.output.messages`. */
export function capturedOutput({
  text,
  toolCalls = [],
  finishReason,
}: {
  text: string;
  toolCalls?: readonly ToolCall[];
  finishReason: string | undefined;
}): string {
  const parts = [...(text === '' ? [] : [textPart(text)]), ...toolCalls.map(toolCallPart)];
  return JSON.stringify([
    { role: 'assistant', parts, ...(finishReason === undefined ? {} : { finish_reason: finishReason }) },
  ]);
}

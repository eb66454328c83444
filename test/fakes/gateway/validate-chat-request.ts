import { invalidRequest } from './gateway-error.ts';
import { imageCountOf, textOf } from './message-text.ts';
import { assertModelExists, type ModelCatalog } from './model-catalog.ts';
import { type ChatRequest, chatRequestSchema, parseRequest } from './request-schemas.ts';

/**
 * Checks a chat request against the reference's rules and the model's capabilities, throwing the
 * error a strict gateway would answer with. Returns the parsed request.
 */
export function validateChatRequest(body: unknown, catalog: ModelCatalog): ChatRequest {
  const request = parseRequest(chatRequestSchema, body);
  assertModelExists(catalog, request.model);

  if (request.stream === true && (request.n ?? 1) > 1) {
    throw invalidRequest('n greater than 1 is not allowed when stream is true.', {
      code: 'unsupported_parameter',
      param: 'n',
    });
  }

  const capabilities = catalog.capabilitiesOf(request.model);
  for (const [index, message] of request.messages.entries()) {
    if (imageCountOf(message) === 0) {
      continue;
    }
    if (message.role !== 'user') {
      throw invalidRequest(`Image content parts are only allowed in user messages (messages[${index}]).`, {
        param: `messages[${index}].content`,
      });
    }
    if (!capabilities.vision) {
      throw invalidRequest(`Model ${request.model} does not support image input.`, {
        code: 'unsupported_parameter',
        param: `messages[${index}].content`,
      });
    }
  }

  assertToolsAllowed(request, capabilities.tools);

  if (request.response_format?.type === 'json_schema' && !capabilities.jsonSchema) {
    throw invalidRequest(
      `response_format json_schema is unsupported by model ${request.model}; use json_object instead.`,
      { code: 'unsupported_parameter', param: 'response_format' },
    );
  }

  if (request.response_format?.type === 'json_object' && !asksForJson(request)) {
    throw invalidRequest(
      "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
      { param: 'messages' },
    );
  }

  return request;
}

// A model without function calling refuses `tools`; every tool message must answer a call the
// assistant made just before it (OpenAI: "messages with role 'tool' must be a response to a preceding
// message with 'tool_calls'").
function assertToolsAllowed(request: ChatRequest, modelHasTools: boolean): void {
  if (request.tools !== undefined && !modelHasTools) {
    throw invalidRequest(`Model ${request.model} does not support tools.`, {
      code: 'unsupported_parameter',
      param: 'tools',
    });
  }
  let openCallIds = new Set<string>();
  for (const [index, message] of request.messages.entries()) {
    if (message.role === 'tool') {
      if (!openCallIds.has(message.tool_call_id)) {
        throw invalidRequest(
          `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (messages[${index}]).`,
          { param: `messages[${index}].tool_call_id` },
        );
      }
      openCallIds.delete(message.tool_call_id);
      continue;
    }
    openCallIds = new Set(
      message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [],
    );
  }
}

// The reference asks for the word in a system or user message; an assistant turn does not count.
function asksForJson(request: ChatRequest): boolean {
  return request.messages.some((message) => message.role !== 'assistant' && /json/i.test(textOf(message)));
}

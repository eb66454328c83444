import type OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { ResponseFormatJSONObject, ResponseFormatJSONSchema } from 'openai/resources/shared';
import type { z } from 'zod';
import type { SpendHold } from '../spending/spend-hold.ts';
import { completeChat } from './chat-completions.ts';
import type { ChatMessage, TokenUsage } from './chat-types.ts';
import { GatewayError } from './gateway-error.ts';
import { capabilitiesOf, type ModelCatalog } from './model-catalog.ts';

export interface StructuredRequest<Schema extends z.ZodType> {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  /** The shape the answer must have; it becomes the JSON Schema sent to the model and the validator. */
  readonly schema: Schema;
  /** Names the schema for the model (`json_schema.name`): letters, digits, `_` and `-`. */
  readonly schemaName: string;
  readonly maxTokens: number;
  /** Covers each request made, the repair included. */
  readonly hold: SpendHold;
  readonly signal?: AbortSignal;
}

export interface StructuredReply<Value> {
  readonly value: Value;
  /** Tokens of every request this took (a repair request adds its own). */
  readonly usage: TokenUsage;
  /** `json_schema` when the model took the schema natively, else the `json_object` fallback. */
  readonly mode: 'json_schema' | 'json_object';
  readonly attempts: number;
}

export interface StructuredOutputOptions {
  readonly client: OpenAI;
  readonly catalog: ModelCatalog;
  readonly streamIdleTimeoutMs: number;
}

/**
 * Asks for an answer in the shape of a zod schema: `json_schema` (strict) where the model supports it,
 * otherwise `json_object` with the schema in the system message. The reply is parsed and validated;
 * a reply that fails gets one repair request quoting the problem, then an `invalid-reply` error.
 */
export async function generateStructured<Schema extends z.ZodType>(
  options: StructuredOutputOptions,
  request: StructuredRequest<Schema>,
): Promise<StructuredReply<z.output<Schema>>> {
  const schemaFormat = zodResponseFormat(request.schema, request.schemaName);
  const useJsonSchema = capabilitiesOf(options.catalog, request.model).jsonSchema;
  let responseFormat: ResponseFormatJSONSchema | ResponseFormatJSONObject = useJsonSchema
    ? { type: 'json_schema', json_schema: schemaFormat.json_schema }
    : { type: 'json_object' };
  const instructions = describeWantedJson({
    schema: schemaFormat.json_schema.schema,
    isSchemaSentNatively: useJsonSchema,
  });
  const messages: ChatMessage[] = [{ role: 'system', content: instructions }, ...request.messages];

  let usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  let problem = '';
  let lastReply = '';
  let attempts = 0;
  while (attempts < 2) {
    let reply: { text: string; usage: TokenUsage | undefined };
    try {
      reply = await requestJson(options, { ...request, messages, responseFormat });
    } catch (error) {
      // The catalog can be wrong about a model: when the gateway refuses json_schema, fall back once.
      if (responseFormat.type === 'json_schema' && isJsonSchemaRefusal(error)) {
        responseFormat = { type: 'json_object' };
        messages[0] = {
          role: 'system',
          content: describeWantedJson({
            schema: schemaFormat.json_schema.schema,
            isSchemaSentNatively: false,
          }),
        };
        continue;
      }
      throw error;
    }
    attempts += 1;
    usage = addUsage(usage, reply.usage);
    lastReply = reply.text;
    const checked = parseAndValidate(request.schema, reply.text);
    if (checked.isValid) {
      return { value: checked.value, usage, mode: responseFormat.type, attempts };
    }
    problem = checked.problem;
    messages.push(
      { role: 'assistant', content: lastReply },
      {
        role: 'user',
        content: `That JSON was not valid for the schema: ${problem}. Reply again with only the corrected JSON object.`,
      },
    );
  }
  throw new GatewayError({
    kind: 'invalid-reply',
    message: `structured reply failed validation twice: ${problem}`,
    detail: lastReply.slice(0, 2_000),
  });
}

function isJsonSchemaRefusal(error: unknown): boolean {
  return (
    error instanceof GatewayError &&
    error.kind === 'invalid-request' &&
    /json_schema|response_format|structured/i.test(`${error.detail ?? ''} ${error.message}`)
  );
}

async function requestJson(
  options: StructuredOutputOptions,
  request: {
    model: string;
    messages: readonly ChatMessage[];
    responseFormat: ResponseFormatJSONSchema | ResponseFormatJSONObject;
    maxTokens: number;
    hold: SpendHold;
    signal?: AbortSignal;
  },
): Promise<{ text: string; usage: TokenUsage | undefined }> {
  const reply = await completeChat(
    options,
    {
      model: request.model,
      messages: request.messages,
      maxTokens: request.maxTokens,
      hold: request.hold,
      ...(request.signal ? { signal: request.signal } : {}),
    },
    { responseFormat: request.responseFormat },
  );
  return { text: reply.text, usage: reply.usage };
}

// The word JSON must be in the prompt for json_object mode; the schema goes along in both modes so a
// model that ignores response_format still knows the shape.
function describeWantedJson({
  schema,
  isSchemaSentNatively,
}: {
  schema: unknown;
  isSchemaSentNatively: boolean;
}): string {
  const lines = [
    'Answer with a single JSON object and nothing else: no prose, no Markdown fences.',
    isSchemaSentNatively
      ? 'It must follow the JSON Schema given with this request.'
      : `It must follow this JSON Schema exactly (every listed property present, no others):\n${JSON.stringify(schema)}`,
  ];
  return lines.join('\n');
}

type ValidationResult<Value> = { isValid: true; value: Value } | { isValid: false; problem: string };

function parseAndValidate<Schema extends z.ZodType>(
  schema: Schema,
  text: string,
): ValidationResult<z.output<Schema>> {
  let json: unknown;
  try {
    json = JSON.parse(stripCodeFence(text));
  } catch (error) {
    return { isValid: false, problem: `it is not parseable JSON (${(error as Error).message})` };
  }
  const result = schema.safeParse(json);
  if (result.success) return { isValid: true, value: result.data };
  const problem = result.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  return { isValid: false, problem };
}

// Some models wrap JSON in ```json fences even in JSON mode; the fence is not part of the answer.
function stripCodeFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/i.exec(text);
  return fenced?.[1] ?? text;
}

function addUsage(total: TokenUsage, usage: TokenUsage | undefined): TokenUsage {
  if (!usage) return total;
  return {
    promptTokens: total.promptTokens + usage.promptTokens,
    completionTokens: total.completionTokens + usage.completionTokens,
    totalTokens: total.totalTokens + usage.totalTokens,
  };
}

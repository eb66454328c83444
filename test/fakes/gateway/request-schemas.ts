import * as z from 'zod';
import { invalidRequest } from './gateway-error.ts';

// The schemas follow the reference field by field. Fields the reference does not list are let
// through ("further request parameters: not shown"), but a listed field of the wrong shape is a 400,
// so a bot that builds a request wrongly fails here rather than against the real gateway.

const dataUriPattern = /^data:[\w.+-]+\/[\w.+-]+;base64,[A-Za-z0-9+/]+={0,2}$/;

const imageReference = z.string().refine((url) => /^https?:\/\//.test(url) || dataUriPattern.test(url), {
  message: 'must be an http(s) link or a data URI of the form data:<mime_type>;base64,<BASE64_DATA>',
});

const textPartSchema = z.object({ type: z.literal('text'), text: z.string() });

const imagePartSchema = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: imageReference }),
});

const contentPartSchema = z.discriminatedUnion('type', [textPartSchema, imagePartSchema]);

// Function calling: the reference names the feature but shows no fields, so the fake takes the
// OpenAI Chat Completions shape (API reference, "Create chat completion": `tools`, `tool_choice`,
// assistant `tool_calls`, `role: "tool"` messages with `tool_call_id`), which the openai SDK sends.
const toolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const contentSchema = z.union([z.string(), z.array(contentPartSchema)]);

const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: contentSchema }),
  z.object({ role: z.literal('user'), content: contentSchema }),
  z.object({
    role: z.literal('assistant'),
    // An assistant turn that only calls tools has no content (null), per the OpenAI shape.
    content: z.union([contentSchema, z.null()]).optional(),
    tool_calls: z.array(toolCallSchema).min(1).optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string() }),
]);

const toolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

const responseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().min(1),
      strict: z.boolean().optional(),
      schema: z.record(z.string(), z.unknown()),
    }),
  }),
]);

/** The body of `POST /chat/completions`. */
export const chatRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().optional(),
  response_format: responseFormatSchema.optional(),
  temperature: z.number().optional(),
  max_tokens: z.int().positive().optional(),
  top_p: z.number().optional(),
  n: z.int().positive().optional(),
  tools: z.array(toolSchema).min(1).optional(),
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
    ])
    .optional(),
});

/** A validated chat request. */
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** One message of a chat request. */
export type ChatMessage = z.infer<typeof messageSchema>;

/** The body of `POST /images/generations`. */
export const imageRequestSchema = z.object({
  model: z.string().min(1),
  prompt: z.string().min(1),
  n: z.int().positive().max(10).optional(),
  response_format: z.enum(['url', 'b64_json']).optional(),
  image_input: z.array(z.string().regex(/^(https?:\/\/|data:image\/)/, 'must be a link')).optional(),
  aspect_ratio: z.string().min(1).optional(),
  output_format: z.enum(['jpg', 'png']).optional(),
});

/** A validated image request. */
export type ImageRequest = z.infer<typeof imageRequestSchema>;

/** Parses `body` or throws a 400 naming the first offending field, as `param`. */
export function parseRequest<Schema extends z.ZodType>(schema: Schema, body: unknown): z.infer<Schema> {
  const result = schema.safeParse(body);
  if (result.success) {
    return result.data;
  }
  const issue = result.error.issues[0];
  const param = issue === undefined ? undefined : formatPath(issue.path);
  const detail = issue === undefined ? 'invalid body' : `${param || 'body'}: ${issue.message}`;
  throw invalidRequest(`Invalid request: ${detail}`, param ? { param } : {});
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') {
        return `[${segment}]`;
      }
      return index === 0 ? String(segment) : `.${String(segment)}`;
    })
    .join('');
}

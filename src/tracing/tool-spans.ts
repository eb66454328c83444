import { SpanKind } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} from './span-attributes.ts';
import { inSpan, markFailed } from './tracer.ts';

/**
 * One tool call as an `execute_tool {name}` span (GenAI conventions), the active span while it runs,
 * so an MCP server's request carries its `traceparent`. A call that answered with an error (timed out,
 * refused by its server) ends with error status; its arguments and result are never recorded.
 */
export function traceToolCall<Output extends { readonly isError?: boolean }>(
  { name, callId }: { name: string; callId: string },
  run: () => Promise<Output>,
): Promise<Output> {
  return inSpan(
    {
      name: `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${name}`,
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        [ATTR_GEN_AI_TOOL_NAME]: name,
        [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
        [ATTR_GEN_AI_TOOL_TYPE]: 'function',
      },
    },
    async (span) => {
      const output = await run();
      if (output.isError === true) markFailed(span, { kind: 'tool_error' });
      return output;
    },
  );
}

import { readFileSync } from 'node:fs';
import { specificationErrata } from './specification-errata.ts';

/**
 * Discord's OpenAPI 3.1 specification of the v10 HTTP API, vendored in `spec/` at a pinned commit
 * (spec/source.json says which), read once per process with the errata applied.
 */

/** A JSON Schema as the specification writes it. */
export type JsonSchema = Record<string, unknown>;

/** One parameter of an operation (the specification only has `path` and `query` ones). */
export interface OperationParameter {
  name: string;
  location: 'path' | 'query';
  isRequired: boolean;
  schema: JsonSchema;
}

/** One operation: a method on a path template, e.g. `POST /channels/{channel_id}/messages`. */
export interface SpecifiedOperation {
  operationId: string;
  method: string;
  template: string;
  parameters: readonly OperationParameter[];
  /** The body schemas by media type; empty when the operation takes no body. */
  bodySchemas: ReadonlyMap<string, JsonSchema>;
  isBodyRequired: boolean;
}

/** What the specification says about a method on a path. */
export type OperationLookup =
  | { kind: 'found'; operation: SpecifiedOperation; pathParameters: Record<string, string> }
  | { kind: 'unknown-route' }
  | { kind: 'unknown-method'; template: string };

/** The vendored document, parsed, with the errata applied and its operations indexed. */
export interface OpenApiDocument {
  /** `components` of the document, the target of every `#/components/...` reference. */
  components: JsonSchema;
  lookUp(method: string, path: string): OperationLookup;
}

const methods = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface PathEntry {
  template: string;
  /** The template's segments; `undefined` where a parameter goes. */
  segments: readonly (string | undefined)[];
  parameterNames: readonly string[];
  operations: Map<string, SpecifiedOperation>;
}

let loaded: OpenApiDocument | undefined;

/** The document, parsed on first use: 1.2 MB of JSON is read once per test file, not per request. */
export function openApiDocument(): OpenApiDocument {
  loaded ??= parseDocument(
    JSON.parse(readFileSync(new URL('./spec/openapi.json', import.meta.url), 'utf8')) as JsonSchema,
  );
  return loaded;
}

function parseDocument(document: JsonSchema): OpenApiDocument {
  for (const erratum of specificationErrata) {
    replaceAt(document, erratum.pointer, erratum.replacement);
  }
  const paths = document.paths as Record<string, Record<string, unknown>>;
  const entries: PathEntry[] = Object.entries(paths).map(([template, item]) => toPathEntry(template, item));
  // A literal segment wins over a parameter in the same place (`/messages/@original` before
  // `/messages/{message_id}`), so templates with fewer parameters are tried first.
  entries.sort((left, right) => left.parameterNames.length - right.parameterNames.length);
  return {
    components: document.components as JsonSchema,
    lookUp(method, path) {
      const segments = path.split('/');
      for (const entry of entries) {
        const pathParameters = matchTemplate(entry, segments);
        if (pathParameters === undefined) {
          continue;
        }
        const operation = entry.operations.get(method.toLowerCase());
        return operation === undefined
          ? { kind: 'unknown-method', template: entry.template }
          : { kind: 'found', operation, pathParameters };
      }
      return { kind: 'unknown-route' };
    },
  };
}

function toPathEntry(template: string, item: Record<string, unknown>): PathEntry {
  const parameterNames: string[] = [];
  const segments = template.split('/').map((segment) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (name === undefined) {
      return segment;
    }
    parameterNames.push(name);
    return undefined;
  });
  const shared = readParameters(item.parameters);
  const operations = new Map<string, SpecifiedOperation>();
  for (const method of methods) {
    const operation = item[method] as Record<string, unknown> | undefined;
    if (operation === undefined) {
      continue;
    }
    const requestBody = operation.requestBody as
      | { required?: boolean; content: Record<string, { schema: JsonSchema }> }
      | undefined;
    operations.set(method, {
      operationId: String(operation.operationId),
      method: method.toUpperCase(),
      template,
      parameters: [...shared, ...readParameters(operation.parameters)],
      bodySchemas: new Map(
        Object.entries(requestBody?.content ?? {}).map(([mediaType, { schema }]) => [mediaType, schema]),
      ),
      isBodyRequired: requestBody?.required ?? false,
    });
  }
  return { template, segments, parameterNames, operations };
}

function readParameters(raw: unknown): OperationParameter[] {
  const parameters = (raw ?? []) as { name: string; in: string; required?: boolean; schema: JsonSchema }[];
  return parameters
    .filter((parameter) => parameter.in === 'path' || parameter.in === 'query')
    .map((parameter) => ({
      name: parameter.name,
      location: parameter.in as 'path' | 'query',
      isRequired: parameter.required ?? false,
      schema: parameter.schema,
    }));
}

function matchTemplate(entry: PathEntry, segments: readonly string[]): Record<string, string> | undefined {
  if (entry.segments.length !== segments.length) {
    return undefined;
  }
  const parameters: Record<string, string> = {};
  let parameterIndex = 0;
  for (const [index, expected] of entry.segments.entries()) {
    const actual = segments[index] ?? '';
    if (expected === undefined) {
      // An empty segment (`/channels//messages`) fills no parameter.
      if (actual === '') {
        return undefined;
      }
      parameters[entry.parameterNames[parameterIndex] ?? ''] = actual;
      parameterIndex += 1;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return parameters;
}

/** Replaces the value at a JSON Pointer (RFC 6901) of the document, for an erratum. */
function replaceAt(document: JsonSchema, pointer: string, replacement: unknown): void {
  const keys = pointer
    .split('/')
    .slice(1)
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = keys.pop();
  let node: unknown = document;
  for (const key of keys) {
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  if (last === undefined || typeof node !== 'object' || node === null || !(last in node)) {
    throw new Error(`specification erratum: nothing at ${pointer}; the vendored spec changed`);
  }
  (node as Record<string, unknown>)[last] = replacement;
}

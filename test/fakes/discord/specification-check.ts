import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { FieldProblem } from './discord-api-error.ts';
import {
  type JsonSchema,
  type OperationParameter,
  openApiDocument,
  type SpecifiedOperation,
} from './openapi-document.ts';

/**
 * Checks a REST request against Discord's OpenAPI specification (spec/openapi.json): the method and
 * path against the path templates, path and query parameters against their schemas, and the JSON body
 * (or a multipart body's `payload_json`) against the operation's request body schema.
 */

/** A request as the check reads it. */
export interface CheckedRequest {
  method: string;
  /** The decoded path after `/api/v10`, e.g. `/channels/1/messages`. */
  path: string;
  query: URLSearchParams;
  /** The JSON body or `payload_json`; `undefined` when there was none. */
  json: unknown;
  /** Whether the body was multipart (`payload_json` and `files[n]`). */
  isMultipart: boolean;
  fileCount: number;
}

/** Why the specification forbids a request. */
export type ViolationKind =
  | 'unknown-route'
  | 'unknown-method'
  | 'path-parameters'
  | 'query-parameters'
  | 'missing-body'
  | 'unexpected-body'
  | 'unsupported-media-type'
  | 'body';

/** A request the specification forbids, as the fake records it for the test to fail on. */
export interface SpecificationViolation {
  kind: ViolationKind;
  method: string;
  path: string;
  /** The operation's id and template when the route is in the specification. */
  operationId?: string;
  template?: string;
  query: Record<string, string>;
  body: unknown;
  /** What ajv found, as it reports it. */
  errors: readonly ErrorObject[];
}

/** The `$id` the specification's `components` are added under, the target of every `$ref`. */
const componentsId = 'discord-openapi';

interface Validators {
  /** Bodies are validated as sent: no coercion, so a number where a string belongs is caught. */
  body: Ajv2020;
  /** Path and query values are strings on the wire; this one turns `"50"` into 50 for `integer`. */
  parameters: Ajv2020;
  /** Compiled validators by operation and part, compiled once per process (ajv's compile is slow). */
  compiled: Map<string, ValidateFunction>;
}

let validators: Validators | undefined;

function loadValidators(): Validators {
  const { components } = openApiDocument();
  const create = (coerceTypes: boolean) => {
    // `strict: false`: the spec carries OpenAPI keywords (`discriminator`, `x-discord-union`) that
    // are not JSON Schema and that ajv must ignore; `validateSchema: false`: the vendored document is
    // trusted, and checking it against the meta-schema costs time in every test file.
    const ajv = new Ajv2020({ strict: false, validateSchema: false, coerceTypes });
    ajvFormats.default(ajv);
    // The spec's own formats: `snowflake` comes with its pattern and `nonce` with its maxLength, so
    // there is nothing left for a format to check.
    ajv.addFormat('snowflake', true);
    ajv.addFormat('nonce', true);
    ajv.addSchema({ $id: componentsId, components }, undefined, undefined, false);
    return ajv;
  };
  return { body: create(false), parameters: create(true), compiled: new Map() };
}

function compiled(key: string, kind: 'body' | 'parameters', schema: () => JsonSchema): ValidateFunction {
  validators ??= loadValidators();
  let validate = validators.compiled.get(key);
  if (validate === undefined) {
    validate = validators[kind].compile(pointReferencesAtComponents(schema()));
    validators.compiled.set(key, validate);
  }
  return validate;
}

/** Checks one request: what the specification forbids in it, or `undefined` when it allows it. */
export function checkRequest(request: CheckedRequest): SpecificationViolation | undefined {
  const query = Object.fromEntries(request.query);
  const violation = (
    kind: ViolationKind,
    errors: readonly ErrorObject[] = [],
    operation?: Pick<SpecifiedOperation, 'template'> & Partial<Pick<SpecifiedOperation, 'operationId'>>,
  ): SpecificationViolation => ({
    kind,
    method: request.method,
    path: request.path,
    ...(operation?.operationId === undefined ? {} : { operationId: operation.operationId }),
    ...(operation === undefined ? {} : { template: operation.template }),
    query,
    body: request.json,
    errors,
  });

  const lookup = openApiDocument().lookUp(request.method, request.path);
  if (lookup.kind === 'unknown-route') {
    return violation('unknown-route');
  }
  if (lookup.kind === 'unknown-method') {
    return violation('unknown-method', [], { template: lookup.template });
  }
  const { operation, pathParameters } = lookup;

  const checkParameters = (location: 'path' | 'query', values: Record<string, string>) => {
    const validate = compiled(`${operation.operationId} ${location}`, 'parameters', () =>
      parametersSchema(operation.parameters.filter((parameter) => parameter.location === location)),
    );
    // Coercion writes into what it validates; the values stay as they came for the record.
    return validate({ ...values }) ? [] : (validate.errors ?? []);
  };
  const pathErrors = checkParameters('path', pathParameters);
  if (pathErrors.length > 0) {
    return violation('path-parameters', pathErrors, operation);
  }
  const queryErrors = checkParameters('query', query);
  if (queryErrors.length > 0) {
    return violation('query-parameters', queryErrors, operation);
  }

  const hasBody = request.json !== undefined || request.fileCount > 0;
  if (operation.bodySchemas.size === 0) {
    return hasBody ? violation('unexpected-body', [], operation) : undefined;
  }
  if (!hasBody) {
    return operation.isBodyRequired ? violation('missing-body', [], operation) : undefined;
  }
  const mediaType = request.isMultipart ? 'multipart/form-data' : 'application/json';
  if (!operation.bodySchemas.has(mediaType)) {
    return violation('unsupported-media-type', [], operation);
  }
  // A multipart body's `payload_json` is validated as the JSON body would be: its schema is the
  // operation's JSON one, and the multipart schema only adds the `files[n]` parts beside it.
  const schemaMediaType = operation.bodySchemas.has('application/json') ? 'application/json' : mediaType;
  const validate = compiled(`${operation.operationId} ${schemaMediaType}`, 'body', () =>
    multipartFieldsOnly(operation.bodySchemas.get(schemaMediaType) ?? {}, schemaMediaType),
  );
  const body = request.json ?? {};
  return validate(body) ? undefined : violation('body', validate.errors ?? [], operation);
}

/** Path or query parameters as one object schema: the known names only, the required ones present. */
function parametersSchema(parameters: readonly OperationParameter[]): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
    required: parameters.filter((parameter) => parameter.isRequired).map((parameter) => parameter.name),
    additionalProperties: false,
  };
}

// For an operation that only takes multipart (uploads of attachments), `payload_json` holds the
// fields and the files come as parts the fake already read; the `files[n]` properties are dropped.
function multipartFieldsOnly(schema: JsonSchema, mediaType: string): JsonSchema {
  if (mediaType !== 'multipart/form-data') {
    return schema;
  }
  const properties = { ...((schema.properties ?? {}) as Record<string, unknown>) };
  for (const name of Object.keys(properties)) {
    if (/^files\[\d+\]$/.test(name)) {
      delete properties[name];
    }
  }
  return { ...schema, properties };
}

/** Points the spec's `#/components/...` references at the components added under `componentsId`. */
function pointReferencesAtComponents(schema: unknown): JsonSchema {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"$ref":"#/components/', `"$ref":"${componentsId}#/components/`),
  ) as JsonSchema;
}

const documentedCodes: Record<string, (error: ErrorObject) => { code: string; message: string }> = {
  // reference.mdx, "Error Messages", gives these two codes with their messages.
  required: () => ({ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }),
  enum: (error) => ({
    code: 'BASE_TYPE_CHOICES',
    message: `Value must be one of (${(error.params.allowedValues as unknown[]).map(String).join(', ')}).`,
  }),
  // Observed, as message-limits.ts answers a content over its limit.
  maxLength: (error) => ({
    code: 'BASE_TYPE_MAX_LENGTH',
    message: `Must be ${String(error.params.limit)} or fewer in length.`,
  }),
  maxItems: (error) => ({
    code: 'BASE_TYPE_MAX_LENGTH',
    message: `Must be ${String(error.params.limit)} or fewer in length.`,
  }),
};

/**
 * ajv's errors as Discord's nested field errors (reference.mdx, "Error Messages"). Discord publishes
 * no complete list of its codes ("a complete list of errors is not feasible"), so where the docs give
 * none the code names the JSON Schema keyword that failed, e.g. `SPECIFICATION_ADDITIONAL_PROPERTIES`.
 */
export function fieldProblems(errors: readonly ErrorObject[]): FieldProblem[] {
  return withChoicesMerged(errors).map((error) => {
    const path: (string | number)[] = error.instancePath
      .split('/')
      .slice(1)
      .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
    const field =
      (error.params.missingProperty as string | undefined) ??
      (error.params.additionalProperty as string | undefined);
    if (field !== undefined) {
      path.push(field);
    }
    const documented = documentedCodes[error.keyword];
    return {
      path,
      error: documented
        ? documented(error)
        : {
            code: `SPECIFICATION_${error.keyword.replaceAll(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`,
            message: error.message ?? error.keyword,
          },
    };
  });
}

/**
 * The spec writes its enums as a `oneOf` of `const`s, so ajv reports one error per allowed value;
 * they become one `enum` error per field listing them all, as Discord's BASE_TYPE_CHOICES does.
 */
function withChoicesMerged(errors: readonly ErrorObject[]): ErrorObject[] {
  const choices = new Map<string, ErrorObject>();
  const merged: ErrorObject[] = [];
  for (const error of errors) {
    if (error.keyword !== 'const') {
      merged.push(error);
      continue;
    }
    const existing = choices.get(error.instancePath);
    if (existing === undefined) {
      const first = { ...error, keyword: 'enum', params: { allowedValues: [error.params.allowedValue] } };
      choices.set(error.instancePath, first);
      merged.push(first);
    } else {
      (existing.params.allowedValues as unknown[]).push(error.params.allowedValue);
    }
  }
  return merged;
}

/** A JSON Schema node, loosely typed: the fake reads only the keywords it needs. */
type SchemaNode = Record<string, unknown>;

// Deep or recursive schemas are cut off here so a self-referencing schema still yields a value.
const maxDepth = 8;

/**
 * Builds a value that conforms to a JSON Schema of the kind structured output uses (`type`,
 * `properties`, `required`, `items`, `enum`, `anyOf`, local `$ref`), so the fake's default
 * `json_schema` reply is something a bot's zod schema accepts.
 */
export function exampleForSchema(schema: SchemaNode): unknown {
  return exampleFor(schema, schema, '', 0);
}

function exampleFor(node: SchemaNode, root: SchemaNode, name: string, depth: number): unknown {
  if (depth > maxDepth) {
    return null;
  }
  const reference = node.$ref;
  if (typeof reference === 'string') {
    return exampleFor(resolveReference(root, reference), root, name, depth + 1);
  }
  if ('const' in node) {
    return node.const;
  }
  if (Array.isArray(node.enum) && node.enum.length > 0) {
    return node.enum[0];
  }
  const alternatives = node.anyOf ?? node.oneOf;
  if (Array.isArray(alternatives) && isSchemaNode(alternatives[0])) {
    return exampleFor(alternatives[0], root, name, depth + 1);
  }
  switch (typeOf(node)) {
    case 'object':
      return objectExample(node, root, depth);
    case 'array':
      return arrayExample(node, root, name, depth);
    case 'string':
      return stringExample(node, name);
    case 'integer':
      return typeof node.minimum === 'number' ? Math.ceil(node.minimum) : 1;
    case 'number':
      return typeof node.minimum === 'number' ? node.minimum : 1.5;
    case 'boolean':
      return true;
    default:
      return null;
  }
}

function objectExample(node: SchemaNode, root: SchemaNode, depth: number): Record<string, unknown> {
  const properties = isSchemaNode(node.properties) ? node.properties : {};
  const value: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (isSchemaNode(property)) {
      value[key] = exampleFor(property, root, key, depth + 1);
    }
  }
  return value;
}

function arrayExample(node: SchemaNode, root: SchemaNode, name: string, depth: number): unknown[] {
  const count = typeof node.minItems === 'number' ? Math.max(node.minItems, 1) : 1;
  const items = isSchemaNode(node.items) ? node.items : {};
  return Array.from({ length: count }, () => exampleFor(items, root, name, depth + 1));
}

function stringExample(node: SchemaNode, name: string): string {
  if (node.format === 'date-time') {
    return '2024-01-01T00:00:00Z';
  }
  if (node.format === 'date') {
    return '2024-01-01';
  }
  if (node.format === 'email') {
    return 'someone@example.com';
  }
  if (node.format === 'uri' || node.format === 'url') {
    return 'https://example.com/';
  }
  const text = name === '' ? 'example' : `example ${name}`;
  const minLength = typeof node.minLength === 'number' ? node.minLength : 0;
  return text.padEnd(minLength, '.');
}

function typeOf(node: SchemaNode): string | undefined {
  const type = node.type;
  if (Array.isArray(type)) {
    // `["string", "null"]` is how strict mode spells an optional field: prefer the real type.
    return type.find((entry) => entry !== 'null') ?? 'null';
  }
  if (typeof type === 'string') {
    return type;
  }
  return isSchemaNode(node.properties) ? 'object' : undefined;
}

function resolveReference(root: SchemaNode, reference: string): SchemaNode {
  if (!reference.startsWith('#')) {
    return {};
  }
  let node: unknown = root;
  for (const segment of reference.slice(1).split('/').filter(Boolean)) {
    node = isSchemaNode(node) ? node[segment.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined;
  }
  return isSchemaNode(node) ? node : {};
}

function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

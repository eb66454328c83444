import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  allowedParleyVariables,
  allowParleyVariablesSchema,
  fillPlaceholders,
  type PlaceholderVariable,
  refusedPlaceholders,
} from './tools-file-placeholders.ts';

export type { PlaceholderVariable } from './tools-file-placeholders.ts';

/**
 * The owner's list of MCP servers (`TOOLS_FILE`, default config/tools.json): servers parley starts
 * (`command`, over stdio) and servers it reaches (`url`, Streamable HTTP), each with what the owner
 * decides about its tools. Secrets stay out of the file as `${NAME}` placeholders, filled from the
 * environment at start and handed to the logger's scrubber, so they never reach a log. parley's own
 * variables (the gateway key, platform tokens, the store's URL…) are refused as placeholders unless
 * the server names them in `allowParleyVariables`: a copied file cannot hand them on silently.
 */

/** How parley talks to one server. */
export type McpTransportSettings =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Added to the few variables a child inherits (PATH, HOME…): parley's own secrets stay here. */
      readonly env: Readonly<Record<string, string>>;
      /** Where it runs; a relative path in the file starts at the project folder. */
      readonly cwd: string | undefined;
    }
  | {
      readonly kind: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      /**
       * Whose OAuth connection its requests carry (docs/tools.md, Connectors): `person`, each
       * asker's own; `owner`, one an admin made for the whole place; undefined, none (static headers).
       */
      readonly auth: ConnectorAuth | undefined;
    };

/** Whose connection an OAuth-protected server is reached with. */
export type ConnectorAuth = {
  readonly kind: 'person' | 'owner';
  /** A client registered beforehand with the server's authorization server; else CIMD or dynamic registration. */
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
  /** Asked for when the server's challenge and metadata name none. */
  readonly scope: string | undefined;
};

/** What the owner overrides of a tool's MCP annotations; unset hints come from the server. */
export interface AnnotationOverride {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly openWorldHint?: boolean;
}

export interface McpServerSettings {
  /** The key in the file, and the prefix of its tools' names (`files` gives `files_read_file`). */
  readonly name: string;
  readonly transport: McpTransportSettings;
  /** The server's tools parley offers, by their MCP names (`read_*` for a prefix); undefined: all. */
  readonly enabledTools: readonly string[] | undefined;
  /** By MCP tool name, or `*` for all of the server's tools (a tool's own entry wins). */
  readonly annotationOverrides: Readonly<Record<string, AnnotationOverride>>;
  /** What one call costs, in billionths of a cost unit, where `priceNanosByTool` does not say. */
  readonly priceNanos: number;
  /** What one call of a tool costs, by its MCP name, where it differs from the server's price. */
  readonly priceNanosByTool: Readonly<Record<string, number>>;
  /** The longest one call may take. */
  readonly deadlineMs: number;
  /** The most characters of one answer the model gets. */
  readonly maxResultCharacters: number;
  /** The variables its placeholders were filled from, and where each went: for the start-up line. */
  readonly variables: readonly PlaceholderVariable[];
}

/** What reading the file gives: the servers, the values to scrub, the variables it names. */
export interface ToolsFileReading {
  readonly servers: readonly McpServerSettings[];
  /** Every value a placeholder filled, and every header value: credentials, for the scrubber. */
  readonly secrets: readonly string[];
  /** The variables its placeholders name, so start-up does not call them unknown. */
  readonly variableNames: readonly string[];
}

const defaultDeadlineSeconds = 60;
const defaultMaxResultCharacters = 20_000;

// No `_`: a tool's name is `<server>_<tool>`, so `files_*` in TOOLS is this server's tools and no other's.
const serverNamePattern = /^[a-z0-9][a-z0-9-]{0,23}$/;
const annotationOverrideSchema = z.strictObject({
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

const commonShape = {
  tools: z
    .array(z.string().regex(/^[^*]+\*?$|^\*$/, 'is a tool name, a prefix ending in *, or *'))
    .optional(),
  annotations: z.record(z.string().min(1), annotationOverrideSchema).optional(),
  // One price for every tool, or prices by MCP tool name with `*` for the rest (`{"*": 0, "create_issue": 0.05}`).
  pricePerCall: z
    .union([z.number().min(0).max(1_000), z.record(z.string().min(1), z.number().min(0).max(1_000))])
    .optional(),
  deadlineSeconds: z.number().positive().max(3_600).optional(),
  maxResultCharacters: z.number().int().min(200).max(1_000_000).optional(),
  allowParleyVariables: allowParleyVariablesSchema,
};

const stdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  ...commonShape,
});

const httpServerSchema = z
  .strictObject({
    url: z
      .string()
      .refine((value) => /^https?:$/.test(safeUrl(value)?.protocol ?? ''), 'must be an http(s) URL')
      .refine((value) => safeUrl(value)?.username === '', 'must not hold credentials: use headers'),
    headers: z.record(z.string().min(1), z.string()).default({}),
    auth: z.enum(['person', 'owner']).optional(),
    oauth: z
      .strictObject({
        clientId: z.string().min(1).optional(),
        clientSecret: z.string().min(1).optional(),
        scope: z.string().min(1).optional(),
      })
      .optional(),
    ...commonShape,
  })
  .refine((server) => server.oauth === undefined || server.auth !== undefined, {
    message: 'is only read with auth ("person" or "owner")',
    path: ['oauth'],
  });

const fileSchema = z.strictObject({ servers: z.record(z.string(), z.unknown()) });

/**
 * Reads the tools file at `path`. A missing file at the default path means no servers; one the owner
 * named must exist. Problems name the file, the server and the field (and a missing variable by
 * name), never a value.
 */
export function readToolsFile({
  path,
  isDefaultPath,
  environment,
  parleyVariableNames,
  resolvePath,
}: {
  path: string;
  isDefaultPath: boolean;
  environment: Readonly<Record<string, string | undefined>>;
  /**
   * Every variable parley itself reads (the core's schema and each platform's fragment): refused
   * as a placeholder unless the server's `allowParleyVariables` names it.
   */
  parleyVariableNames: ReadonlySet<string>;
  /** Makes a relative `cwd` absolute, as every path of the configuration is. */
  resolvePath: (path: string) => string;
}): ToolsFileReading | { readonly problems: readonly string[] } {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && isDefaultPath) return { servers: [], secrets: [], variableNames: [] };
    return {
      problems: [
        code === 'ENOENT'
          ? `TOOLS_FILE ${path} does not exist: point it at a JSON file of MCP servers (docs/tools.md)`
          : `TOOLS_FILE ${path} cannot be read: ${(error as Error).message}`,
      ],
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    return { problems: [`TOOLS_FILE ${path} is not valid JSON: ${(error as Error).message}`] };
  }
  const file = fileSchema.safeParse(json);
  if (!file.success) return { problems: issuesOf(path, [], file.error) };
  const problems: string[] = [];
  const servers: McpServerSettings[] = [];
  const secrets = new Set<string>();
  const variableNames = new Set<string>();
  for (const [name, raw] of Object.entries(file.data.servers)) {
    if (!serverNamePattern.test(name)) {
      problems.push(
        `TOOLS_FILE ${path}: server name ${JSON.stringify(name.slice(0, 40))} must be lowercase letters, digits and - (at most 24, no _), because it prefixes its tools' names`,
      );
      continue;
    }
    const server = readServerEntry({
      name,
      raw,
      path,
      environment,
      parleyVariableNames,
      resolvePath,
      secrets,
      variableNames,
    });
    if ('problems' in server) problems.push(...server.problems);
    else {
      servers.push(server.settings);
      if (server.settings.transport.kind === 'http') {
        for (const value of Object.values(server.settings.transport.headers)) secrets.add(value);
        const clientSecret = server.settings.transport.auth?.clientSecret;
        if (clientSecret !== undefined) secrets.add(clientSecret);
      }
    }
  }
  if (problems.length > 0) return { problems };
  return { servers, secrets: [...secrets], variableNames: [...variableNames] };
}

/** One server's entry: its allow list, its placeholders (refused, missing or filled), its fields. */
function readServerEntry({
  name,
  raw,
  path,
  environment,
  parleyVariableNames,
  resolvePath,
  secrets,
  variableNames,
}: {
  name: string;
  raw: unknown;
  path: string;
  environment: Readonly<Record<string, string | undefined>>;
  parleyVariableNames: ReadonlySet<string>;
  resolvePath: (path: string) => string;
  secrets: Set<string>;
  variableNames: Set<string>;
}): { settings: McpServerSettings } | { problems: string[] } {
  const allowed = allowedParleyVariables({ raw, name, path, parleyVariableNames });
  if ('problems' in allowed) return allowed;
  const refused = refusedPlaceholders({ raw, parleyVariableNames, allowed: allowed.names });
  if (refused.length > 0) {
    return {
      problems: refused.map(
        (variable) =>
          `TOOLS_FILE ${path}: servers.${name} names \${${variable}}, one of parley's own variables, refused unless the server lists it in "allowParleyVariables" (docs/tools.md)`,
      ),
    };
  }
  const filled = fillPlaceholders(raw, { environment, secrets, variableNames });
  if (filled.missing.length > 0) {
    return {
      problems: filled.missing.map(
        (missing) =>
          `TOOLS_FILE ${path}: servers.${name} names \${${missing}}, which is not set in the environment or .env`,
      ),
    };
  }
  return serverOf({ name, value: filled.value, variables: filled.variables, path, resolvePath });
}

function serverOf({
  name,
  value,
  variables,
  path,
  resolvePath,
}: {
  name: string;
  value: unknown;
  variables: readonly PlaceholderVariable[];
  path: string;
  resolvePath: (path: string) => string;
}): { settings: McpServerSettings } | { problems: string[] } {
  const fields = typeof value === 'object' && value !== null ? value : {};
  const isHttp = 'url' in fields;
  if (isHttp === 'command' in fields) {
    return {
      problems: [
        `TOOLS_FILE ${path}: servers.${name} needs either command (a program parley starts, over stdio) or url (a Streamable HTTP server), not ${isHttp ? 'both' : 'neither'}`,
      ],
    };
  }
  const common = (parsed: z.infer<z.ZodObject<typeof commonShape>>) => ({
    name,
    enabledTools: parsed.tools,
    annotationOverrides: parsed.annotations ?? {},
    ...pricesOf(parsed.pricePerCall),
    deadlineMs: Math.round((parsed.deadlineSeconds ?? defaultDeadlineSeconds) * 1_000),
    maxResultCharacters: parsed.maxResultCharacters ?? defaultMaxResultCharacters,
    variables,
  });
  if (isHttp) {
    const parsed = httpServerSchema.safeParse(fields);
    if (!parsed.success) return { problems: issuesOf(path, ['servers', name], parsed.error) };
    return {
      settings: {
        ...common(parsed.data),
        transport: {
          kind: 'http',
          url: parsed.data.url,
          headers: parsed.data.headers,
          auth:
            parsed.data.auth === undefined
              ? undefined
              : {
                  kind: parsed.data.auth,
                  clientId: parsed.data.oauth?.clientId,
                  clientSecret: parsed.data.oauth?.clientSecret,
                  scope: parsed.data.oauth?.scope,
                },
        },
      },
    };
  }
  const parsed = stdioServerSchema.safeParse(fields);
  if (!parsed.success) return { problems: issuesOf(path, ['servers', name], parsed.error) };
  return {
    settings: {
      ...common(parsed.data),
      transport: {
        kind: 'stdio',
        command: parsed.data.command,
        args: parsed.data.args,
        env: parsed.data.env,
        cwd: parsed.data.cwd === undefined ? undefined : resolvePath(parsed.data.cwd),
      },
    },
  };
}

// zod's messages name the field and what is wrong; none of them repeats the value.
function issuesOf(path: string, prefix: readonly string[], error: z.ZodError): string[] {
  return error.issues.map(
    (issue) =>
      `TOOLS_FILE ${path}: ${[...prefix, ...issue.path.map(String)].join('.') || '(top level)'} ${issue.message}`,
  );
}

function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The server's price and each tool's own, in billionths of a cost unit. */
function pricesOf(pricePerCall: number | Readonly<Record<string, number>> | undefined): {
  priceNanos: number;
  priceNanosByTool: Record<string, number>;
} {
  const toNanos = (units: number) => Math.round(units * 1e9);
  if (pricePerCall === undefined || typeof pricePerCall === 'number') {
    return { priceNanos: toNanos(pricePerCall ?? 0), priceNanosByTool: {} };
  }
  const { '*': rest, ...byTool } = pricePerCall;
  return {
    priceNanos: toNanos(rest ?? 0),
    priceNanosByTool: Object.fromEntries(
      Object.entries(byTool).map(([tool, units]) => [tool, toNanos(units)]),
    ),
  };
}

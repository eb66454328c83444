/**
 * Where the vendored OpenAPI specification (spec/openapi.json) is wrong, and what the fake checks
 * instead. Discord's own README of discord/discord-api-spec says the spec "may be not correct" and to
 * "follow the docs, not the spec" where they disagree; each correction here names the documentation
 * that disagrees and an issue of discord/discord-api-spec. It replaces one node of the document, so a
 * correction never widens more than the field it is about, and a correction whose node is gone after
 * an update fails loudly (openapi-document.ts).
 */
export interface SpecificationErratum {
  /** A JSON Pointer (RFC 6901) into the document, e.g. `/components/schemas/X/properties/y`. */
  pointer: string;
  /** The schema (or value) the fake uses there instead. */
  replacement: unknown;
  /** Why the spec is wrong, with the documentation that says otherwise. */
  reason: string;
  /** The issue in discord/discord-api-spec that reports it. */
  issue: string;
}

export const specificationErrata: readonly SpecificationErratum[] = [];

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

/**
 * `default_member_permissions` as the documentation types it: "?string", a permission bit set
 * "serialized as a string" (interactions/application-commands.mdx, "Application Command Structure"
 * and "Permissions"), which is what discord.js and parley send. The spec types it as an integer; its
 * maintainer answered in discord/discord-api-spec#11 that the API accepts strings in int fields when
 * they parse as ints (the spec's README, "Spec conventions", says so too). The field takes both here,
 * the string only when it is a non-negative integer, the number within the spec's range.
 */
const permissionBitSet = {
  type: ['integer', 'string', 'null'],
  minimum: 0,
  maximum: 18014398509481984,
  pattern: '^(0|[1-9][0-9]*)$',
};
const permissionBitSetReason =
  'documented as "?string" (application-commands.mdx); the spec says integer, and the API takes an int-parseable string (spec README, "Spec conventions")';
const permissionBitSetIssue = 'https://github.com/discord/discord-api-spec/issues/11';

export const specificationErrata: readonly SpecificationErratum[] = [
  'ApplicationCommandCreateRequest',
  'ApplicationCommandUpdateRequest',
  'ApplicationCommandPatchRequestPartial',
].map((schemaName) => ({
  pointer: `/components/schemas/${schemaName}/properties/default_member_permissions`,
  replacement: permissionBitSet,
  reason: permissionBitSetReason,
  issue: permissionBitSetIssue,
}));

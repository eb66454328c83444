import type { RuleFinding } from './secretlint-rules.ts';

/**
 * A credential shape secretlint's recommended preset (13.1) has no rule for. The named group
 * `secret` is what is redacted (the whole match when there is none), so a log line keeps
 * `Bearer [redacted]` and a connection URL keeps its host.
 */
interface ParleyPattern {
  readonly kind: string;
  readonly pattern: RegExp;
}

// Each entry says why secretlint does not already find it. Keep this list to what the preset
// lacks: a shape it learns belongs to it, and this entry should then go.
const parleyPatterns: readonly ParleyPattern[] = [
  // HTTP authorization schemes (Discord's `Bot`): secretlint scans files, where headers are rare.
  { kind: 'AUTHORIZATION_HEADER', pattern: /\b(?:Bearer|Bot)\s+(?<secret>[\w.~+/=-]{8,})/g },
  // Model gateway and OpenAI-style keys without the T3BlbkFJ marker secretlint's OpenAI rule
  // requires (GATEWAY_API_KEY values, older sk- keys, rk- restricted keys).
  { kind: 'API_KEY', pattern: /\b(?:sk|rk)-[\w-]{16,}/g },
  // Google API keys (AIza + 35): the preset's GCP rule only reads service-account JSON files.
  { kind: 'GOOGLE_API_KEY', pattern: /\bAIza[\w-]{35}(?![\w-])/g },
  // Discord bot tokens: base64 of the bot's id (17–20 digits, so M, N or O first), a timestamp,
  // an HMAC. No secretlint rule.
  { kind: 'DISCORD_BOT_TOKEN', pattern: /\b[MNO][\w-]{22,27}\.[\w-]{6}\.[\w-]{27,}/g },
  // JSON Web Tokens: a base64url header and payload (both JSON, so `eyJ`), maybe a signature.
  { kind: 'JSON_WEB_TOKEN', pattern: /\beyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*/g },
  // A private key block, even cut short: the preset wants the whole block with 100+ characters.
  {
    kind: 'PRIVATE_KEY',
    pattern:
      /-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\w+/=\s\\]*(?:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----)?/g,
  },
  // A password given as a value (`password: …`, `pwd=…`, "my password is …"): no secretlint rule.
  {
    kind: 'PASSWORD',
    pattern: /\b(?:password|passwd|passphrase|pwd)s?["']?(?:\s*[:=]\s*|\s+is\s+)["']?(?<secret>[^\s"',;]+)/gi,
  },
  // A key given by its name (`secret_access_key = …`, `api_key: …`, "my API key is …"): the
  // preset's AWS rule needs a word boundary after the 40 characters, so it misses a key ending
  // in `/`, `+` or `=`, and it knows no other names. In prose ("is") the value must hold a digit,
  // so "the API key is required" stays a sentence.
  {
    kind: 'NAMED_CREDENTIAL',
    pattern:
      /\b(?:(?:aws_?)?secret_?access_?key|secret_?key|api_?key|access_?token|auth_?token|client_?secret)["']?(?:\s*[:=]\s*["']?|\s+is\s+(?=[\w/+=.~-]*\d))(?<secret>[\w/+=.~-]{8,})/gi,
  },
  // user:password@ in any URL (redis://, postgres://, https://): the preset's basic-auth and
  // database rules know some schemes only, and report the whole URL, host included.
  // The user information ends at the first / ? # (RFC 3986, 3.2.1), so `?:a@` in a query is not one.
  { kind: 'URL_CREDENTIALS', pattern: /\/\/[^:/?#@\s[\]]*:(?<secret>[^/?#@\s[\]]+)@/g },
];

/** Every credential of a shape only parley knows, with the range of its value. */
export function findWithParleyPatterns({ text }: { text: string }): RuleFinding[] {
  const findings: RuleFinding[] = [];
  for (const { kind, pattern } of parleyPatterns) {
    for (const match of text.matchAll(pattern)) {
      const secret = match.groups?.secret;
      const start = secret === undefined ? match.index : match.index + match[0].lastIndexOf(secret);
      findings.push({ kind, start, end: start + (secret ?? match[0]).length });
    }
  }
  return findings;
}

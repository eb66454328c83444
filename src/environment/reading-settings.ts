import { z } from 'zod';
import { commaList, document, httpUrl, optionalText, section, text, wholeNumber } from './setting-schemas.ts';

/** Reading documents people attach, the links in their messages, and the web (issue 16). */
const documentSettings = section('Documents', {
  DOCUMENT_MAX_BYTES: document(wholeNumber({ min: 1, fallback: 20 * 1024 * 1024 }), {
    description:
      'Largest document read, in bytes: PDF, Word (.docx), Excel (.xlsx), CSV and text files attached in chat, given to /file in the terminal, or to --file of /summarize and /extract.',
  }),
  DOCUMENT_MAX_PAGES: document(wholeNumber({ min: 1, fallback: 100 }), {
    description: 'Pages of a PDF (sheets of a workbook) read at most; the rest is left out with a note.',
  }),
  DOCUMENT_MAX_CHARACTERS: document(wholeNumber({ min: 1, fallback: 400_000 }), {
    description: 'Characters extracted from one file at most.',
  }),
  DOCUMENT_CONTEXT_MAX_CHARACTERS: document(wholeNumber({ min: 1, fallback: 120_000 }), {
    description:
      'Characters of documents sent with one request at most; a smaller model context takes fewer (documents get up to 70% of what the context has left), and what was cut is said.',
  }),
  DOCUMENT_SCANNED_PAGES: document(wholeNumber({ min: 1, fallback: 5 }), {
    description: 'Pages of a scanned PDF (no text layer) rendered as images for the vision model.',
  }),
  DOCUMENT_MAX_UNPACKED_BYTES: document(wholeNumber({ min: 1, fallback: 100 * 1024 * 1024 }), {
    description:
      'What a .docx or .xlsx (a zip) may unpack to, in bytes; checked before anything is inflated, so a zip bomb is refused with a note.',
  }),
  DOCUMENT_PARSE_TIMEOUT_MS: document(wholeNumber({ min: 1, fallback: 30_000 }), {
    description:
      'The longest one file may take to parse, in milliseconds. Parsing runs on a worker thread, so other conversations are answered meanwhile.',
  }),
  DOCUMENT_PARSE_MAX_MEMORY_MB: document(wholeNumber({ min: 16, fallback: 256 }), {
    description: "Heap of the worker that parses one file, in MB (Node's resourceLimits).",
  }),
  DOCUMENT_STORE_MAX_BYTES: document(wholeNumber({ min: 1, fallback: 128 * 1024 * 1024 }), {
    description:
      'Most bytes of extracted text kept (one copy per file, 7 days) for follow-up questions and Regenerate; the oldest go first.',
  }),
});

const linkSettings = section('Links', {
  LINK_READING: document(
    z.enum(['on', 'off', 'mention-only'], { error: 'must be on, off or mention-only' }).default('on'),
    {
      description:
        'Read the links in messages (up to 3 a message): web pages as readable text, PDFs as documents, images with the vision model. mention-only reads them only in messages that mention parley or DM it.',
    },
  ),
  LINK_MAX_BYTES: document(wholeNumber({ min: 1, fallback: 2 * 1024 * 1024 }), {
    description: 'Bytes read of one link at most; a longer web page is read up to here, with a note.',
  }),
  LINK_TIMEOUT_MS: document(wholeNumber({ min: 1, fallback: 15_000 }), {
    description: 'The longest the fetch of one link may take, in milliseconds.',
  }),
  LINK_USER_AGENT: document(
    text('parley/0.1 (chat assistant; reads links people share with it; honours robots.txt)'),
    {
      description:
        "Sent with every link request; each site's robots.txt rules for it (or for *) are respected.",
    },
  ),
  LINK_PRIVATE_ORIGINS: document(
    commaList.pipe(
      z.array(
        z
          .url({
            protocol: /^https?$/,
            error: 'must be origins such as http://wiki.internal, comma-separated',
          })
          .transform((value) => new URL(value).origin),
      ),
    ),
    {
      description:
        "Origins on a private network that links people post may lead to (an intranet wiki). Every other private, loopback or link-local address is refused. The model's own read_url never gets them: it reads public addresses only, so a prompt injection cannot send it to the intranet.",
      typeText: 'comma-separated origins',
    },
  ),
});

const searchSettings = section('Web search', {
  SEARCH_URL: document(optionalText.pipe(httpUrl({ example: 'http://localhost:8080' }).optional()), {
    description:
      'Base URL of a SearXNG instance whose settings.yml allows the json format; unset: no web search. Models with "tools": true in the capabilities file get web_search and read_url tools, others a search-first step; /search always searches.',
    typeText: 'http(s) URL',
  }),
  SEARCH_MAX_RESULTS: document(wholeNumber({ min: 1, max: 20, fallback: 5 }), {
    description: 'Results given to the model for one search.',
  }),
  SEARCH_TIMEOUT_MS: document(wholeNumber({ min: 1, fallback: 10_000 }), {
    description: 'The longest one search may take, in milliseconds.',
  }),
  TOOLS_FILE: document(text('config/tools.json'), {
    description: `JSON file of MCP servers whose tools the model may call: programs parley starts (command, args) and Streamable HTTP servers (url, headers), each with its enabled tools, annotation overrides, price per call, deadline and result cap; \${NAME} in it is filled from the environment and never logged, except parley's own variables, refused unless the server lists them in allowParleyVariables. Missing at the default path: no servers. A relative path starts at the project folder (docs/tools.md).`,
    typeText: 'path',
  }),
  TOOL_CALLS_PER_ROUND: document(wholeNumber({ min: 1, max: 20, fallback: 3 }), {
    description:
      'Tool calls (web_search, read_url) run for one model round; further calls of the round are answered "not run". Each page read grows the next round\'s prompt, which the budget hold covers before it is sent.',
  }),
  TOOL_APPROVAL_TIMEOUT_S: document(wholeNumber({ min: 5, max: 3_600, fallback: 120 }), {
    description:
      "How long the question of a tool that acts on the world (not read-only) stays open for its asker's Approve; the reply that asked does not wait for it. Unanswered, the call is not run and the question says so (docs/tools.md).",
  }),
  TOOL_CALLS_PER_REPLY: document(wholeNumber({ min: 1, max: 50, fallback: 6 }), {
    description:
      'Tool calls run for one reply in all, each call put to its asker for approval counted too; after that the model is asked to answer with what it has.',
  }),
  TOOL_ROUNDS_PER_REPLY: document(wholeNumber({ min: 2, max: 10, fallback: 3 }), {
    description:
      'Model requests one tool reply may make: rounds of tool calls, the last without tools so the model answers with what it has. Each round is held on the budgets as it is sent, like the first.',
  }),
  PUBLIC_URL: document(optionalText.pipe(httpUrl({ example: 'https://parley.example.com' }).optional()), {
    description:
      "Where people's browsers reach parley's HTTP server (the health server's port, HEALTH_PORT, behind your proxy): the Connect links of connectors (tools file servers with auth), their OAuth callback (PUBLIC_URL/connectors/callback) and the forms of servers' questions mid-call (elicitation) live there. Required when the tools file has a server with auth; https in production (an https URL also lets parley register by Client ID Metadata Document, PUBLIC_URL/connectors/client-metadata.json).",
    typeText: 'http(s) URL',
  }),
  CONNECTOR_TOKENS_KEY: document(optionalText, {
    description:
      "Key that seals each person's connector tokens at rest (AES-256-GCM): 64 hex digits or 44 characters of base64 (openssl rand -hex 32). Required when the tools file has a server with auth. To rotate, move the old key to CONNECTOR_TOKENS_KEY_OLD and set a new one.",
    typeText: '32-byte key (hex or base64)',
  }),
  CONNECTOR_TOKENS_KEY_OLD: document(optionalText, {
    description:
      'The connector tokens key being rotated out: read-only, so tokens sealed with it still open.',
    typeText: '32-byte key (hex or base64)',
  }),
});

/** Every setting of documents, links and web search, for the environment schema. */
export const readingSettings = { ...documentSettings, ...linkSettings, ...searchSettings };

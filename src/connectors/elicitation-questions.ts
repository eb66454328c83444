import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type Keyv from 'keyv';
import type { AtRestEncryption } from '../secrets/encryption-at-rest.ts';
import type { AnswerQuestion } from '../tools/mcp-questions.ts';
import { randomToken } from './connect-links.ts';
import { fieldsOf, readSubmission, renderForm } from './elicitation-form.ts';

/** How often the process whose tool call waits looks for the answer (any process may receive it). */
const answerPollMs = 250;
/** The most of a submitted form read. */
const maxFormBytes = 64 * 1024;

/**
 * A server's question to the person whose tool call it is serving (MCP `elicitation/create`, form
 * mode), asked in private: the asker gets a single-use link to a form made from the requested
 * schema on parley's HTTP server (at PUBLIC_URL), whose answer is checked against the schema before
 * it reaches the server. Decline says decline; no answer in time says cancel, as the specification
 * has it. Questions and answers live in the shared store (answers sealed, for as long as the call
 * waits), so the link may reach any parley process.
 */
export interface ElicitationQuestions {
  ask(request: {
    server: string;
    params: ElicitRequestFormParams;
    tellPrivately: (text: string) => Promise<void>;
    timeoutMs: number;
    signal: AbortSignal;
  }): Promise<ElicitResult>;
  /** Answers GET and POST of `/answer/<id>`; false for any other path. */
  route(request: IncomingMessage, response: ServerResponse): Promise<boolean>;
}

/**
 * The tools' way of asking (AnswerQuestion) on these questions: the asker's private line, within
 * the call's own deadline, which bounds the whole call.
 */
export function answerQuestionWith(questions: ElicitationQuestions): AnswerQuestion {
  return ({ settings, params, context }) =>
    context.tellAskerPrivately
      ? questions.ask({
          server: settings.name,
          params,
          tellPrivately: context.tellAskerPrivately,
          timeoutMs: Math.max(1_000, settings.deadlineMs - 5_000),
          signal: context.signal,
        })
      : Promise.resolve({ action: 'decline' });
}

interface StoredQuestion {
  readonly server: string;
  readonly message: string;
  readonly requestedSchema: ElicitRequestFormParams['requestedSchema'];
}

export function createElicitationQuestions({
  store,
  encryption,
  publicUrl,
}: {
  store: Keyv;
  encryption: AtRestEncryption;
  publicUrl: string;
}): ElicitationQuestions {
  const base = publicUrl.replace(/\/+$/, '');
  const answerKey = (id: string) => `answer:${id}`;
  const questionKey = (id: string) => `question:${id}`;

  async function giveAnswer(id: string, answer: ElicitResult, ttlMs: number): Promise<boolean> {
    // Taken once: a second submission finds the question gone.
    if (!(await store.delete(questionKey(id)))) return false;
    await store.set(
      answerKey(id),
      encryption.seal({ plaintext: JSON.stringify(answer), context: answerKey(id) }),
      ttlMs,
    );
    return true;
  }

  return {
    async ask({ server, params, tellPrivately, timeoutMs, signal }) {
      if (!fieldsOf(params.requestedSchema)) return { action: 'decline' };
      const id = randomToken();
      const question: StoredQuestion = {
        server,
        message: params.message,
        requestedSchema: params.requestedSchema,
      };
      await store.set(questionKey(id), question, timeoutMs);
      await tellPrivately(
        `❓ ${server} asks: ${params.message.slice(0, 500)}\nAnswer here (only you, within ${Math.max(1, Math.round(timeoutMs / 60_000))} min): ${base}/answer/${id}`,
      );
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && !signal.aborted) {
        const sealed: unknown = await store.get(answerKey(id));
        if (typeof sealed === 'string') {
          await store.delete(answerKey(id));
          return JSON.parse(encryption.open({ sealed, context: answerKey(id) })) as ElicitResult;
        }
        await new Promise((resolve) => setTimeout(resolve, answerPollMs));
      }
      await store.delete(questionKey(id));
      return { action: 'cancel' };
    },
    async route(request, response) {
      const url = new URL(request.url ?? '/', 'http://parley');
      const match = /^\/answer\/([A-Za-z0-9_-]{20,64})$/.exec(url.pathname);
      if (!match?.[1]) return false;
      const id = match[1];
      const question = (await store.get(questionKey(id))) as StoredQuestion | undefined;
      const fields = question ? fieldsOf(question.requestedSchema) : undefined;
      if (!question || !fields) {
        sendHtml(response, 410, '<p>This question was answered already, or it is no longer waiting.</p>');
        return true;
      }
      if (request.method === 'GET') {
        sendHtml(response, 200, renderForm({ server: question.server, message: question.message, fields }));
        return true;
      }
      if (request.method !== 'POST') {
        response.writeHead(405, { allow: 'GET, POST' }).end();
        return true;
      }
      const form = new URLSearchParams(await readBody(request));
      const ttlMs = 60_000;
      if (form.get('_action') === 'decline') {
        const taken = await giveAnswer(id, { action: 'decline' }, ttlMs);
        sendHtml(
          response,
          taken ? 200 : 410,
          taken ? '<p>Declined. You can close this tab.</p>' : '<p>Already answered.</p>',
        );
        return true;
      }
      const reading = readSubmission(fields, form);
      if (reading.kind === 'invalid') {
        sendHtml(
          response,
          400,
          renderForm({
            server: question.server,
            message: question.message,
            fields,
            problems: reading.problems,
          }),
        );
        return true;
      }
      const taken = await giveAnswer(id, { action: 'accept', content: reading.content }, ttlMs);
      sendHtml(
        response,
        taken ? 200 : 410,
        taken ? '<p>Sent. You can close this tab.</p>' : '<p>Already answered.</p>',
      );
      return true;
    },
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxFormBytes) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sendHtml(response: ServerResponse, status: number, html: string): void {
  const page = html.startsWith('<!doctype')
    ? html
    : `<!doctype html><html lang="en"><meta charset="utf-8"><body>${html}</body></html>`;
  response
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(page),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    })
    .end(page);
}

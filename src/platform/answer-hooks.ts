/**
 * The one place where steps act while the answer is written (docs/architecture.md, "One read"). `installAnswerHooks`
 * replaces `writeHead`, `write` and `end` once per app, on Express's response prototype for that app (`app.response`),
 * so no module patches a response and a request pays for a hook only when a step asks for one:
 * - before the head is written: the app's `beforeHead` (the `X-API-Style` and deprecation headers, style-selection.ts);
 * - before the answer ends: the work a step registered with `beforeEnd` (idempotency stores the answer it captured,
 *   read routing records the primary's write position), run in the order registered; the answer is ended (and so
 *   reaches the client) only once every work has settled, so a retry that arrives after the answer finds what it left;
 * - once the answer is done: the app's `onAnswerDone` listeners (the request log line, the usage count, the metrics),
 *   called from ONE 'finish' and ONE 'close' listener per request that the request context step adds (watchAnswer),
 *   module functions that read the response as `this`: no closure, wrapper or listener per step and request.
 */
import { ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';

/** Work to do before the answer ends; `body` holds the bytes written when the work asked for them, else is empty. */
export type BeforeEnd = (body: Buffer) => Promise<void>;

interface Pending {
  work: BeforeEnd[];
  /** The bytes written so far, kept only when a work asked for them. */
  chunks: Buffer[] | undefined;
}

/**
 * What a step does once an answer is done. `finished`: on the response's 'finish' (the answer was handed to the
 * socket); `closed`: on its 'close', which follows 'finish', or comes alone when the client went away first.
 */
export interface AnswerDone {
  finished?(req: Request, res: Response): void;
  closed?(req: Request, res: Response): void;
}

const BEFORE_HEAD = Symbol('beforeHead');
const PENDING = Symbol('pendingBeforeEnd');
const DONE = Symbol('answerDone');

type Hooked = Response & { [BEFORE_HEAD]?: (req: Request, res: Response) => void; [PENDING]?: Pending; [DONE]?: AnswerDone[] };

const base = ServerResponse.prototype as unknown as {
  writeHead: (...args: unknown[]) => unknown;
  write: (...args: unknown[]) => boolean;
  end: (...args: unknown[]) => unknown;
};

function toBuffer(chunk: unknown, encoding?: unknown): Buffer | undefined {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return undefined;
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  // Node's write and end take nothing else (they throw on other types).
  if (typeof chunk !== 'string') return undefined;
  return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
}

function writeHead(this: Hooked, ...args: unknown[]): unknown {
  if (!this.headersSent) this[BEFORE_HEAD]?.(this.req, this);
  return base.writeHead.apply(this, args);
}

function write(this: Hooked, ...args: unknown[]): boolean {
  const chunks = this[PENDING]?.chunks;
  if (chunks) {
    const b = toBuffer(args[0], args[1]);
    if (b) chunks.push(b);
  }
  return base.write.apply(this, args);
}

function end(this: Hooked, ...args: unknown[]): unknown {
  const pending = this[PENDING];
  if (!pending) return base.end.apply(this, args);
  this[PENDING] = undefined;
  const last = pending.chunks ? toBuffer(args[0], args[1]) : undefined;
  const body = pending.chunks ? Buffer.concat(last ? [...pending.chunks, last] : pending.chunks) : Buffer.alloc(0);
  const run = async () => {
    for (const work of pending.work) await work(body).catch(() => undefined);
  };
  void run().finally(() => base.end.apply(this, args));
  return this;
}

/**
 * Installs the hooks on `app`'s responses, once, where the app is built.
 * @param beforeHead called once per answer, just before its head is written.
 */
export function installAnswerHooks(app: Express, beforeHead?: (req: Request, res: Response) => void): void {
  Object.assign(app.response, { [BEFORE_HEAD]: beforeHead, writeHead, write, end });
}

/**
 * Adds `listener` to what every answer of `app` does once it is done (in the order added), e.g. the request log line.
 * Call it while the app is built: the listeners are the app's, kept on its response prototype.
 */
export function onAnswerDone(app: Express, listener: AnswerDone): void {
  const response = app.response as Hooked;
  if (!Object.hasOwn(response, DONE)) response[DONE] = [];
  response[DONE]!.push(listener);
}

function answerFinished(this: Hooked): void {
  for (const l of this[DONE]!) l.finished?.(this.req, this);
}

function answerClosed(this: Hooked): void {
  for (const l of this[DONE]!) l.closed?.(this.req, this);
}

/** Makes this answer call the app's onAnswerDone listeners; the request context step calls it once per request. */
export function watchAnswer(res: Response): void {
  if ((res as Hooked)[DONE] === undefined) return;
  res.on('finish', answerFinished);
  res.on('close', answerClosed);
}

/**
 * Runs `work` when the handler ends the answer, before it is sent; with `captureBody`, `work` gets the bytes written.
 * A work that rejects is ignored (it logs its own trouble); the answer is sent anyway.
 * @throws Error when the app has no answer hooks (installAnswerHooks was not called where it was built).
 */
export function beforeEnd(res: Response, work: BeforeEnd, captureBody = false): void {
  const hooked = res as Hooked;
  if (hooked.end !== end) throw new Error('answer hooks are not installed on this app (installAnswerHooks)');
  const pending = (hooked[PENDING] ??= { work: [], chunks: undefined });
  pending.work.push(work);
  if (captureBody) pending.chunks ??= [];
}

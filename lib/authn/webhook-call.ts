/**
 * One call to a webhook (token review, authorization review) as kube-apiserver makes it: POST
 * the body, retry transient failures (429, 500, 504, a Retry-After, a reset connection) with a
 * growing, jittered delay, all within one deadline. A reply that is not usable, or a call that
 * finally fails, is a WebhookCallFailed with a reason fit for the log (never the body sent).
 */
import { HttpReply } from './kubeconfig-client';

/** What sends the body (a KubeconfigClient; a fake in unit tests). */
export interface WebhookPoster {
  readonly url: string;
  post(body: Buffer, timeoutMs: number): Promise<HttpReply>;
  close(): void;
}

export interface Backoff { initialMs: number; factor: number; jitter: number; steps: number }
/** kube's webhook backoff: 0.5 s, x1.5, 20% jitter, 5 attempts. */
export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };
export const DEFAULT_TIMEOUT_MS = 30_000;

export class WebhookCallFailed extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The 2xx reply turned into a value by `accept` (which throws WebhookCallFailed for a reply it
 * cannot use: not retried), or WebhookCallFailed once retries or time run out.
 */
export async function callWebhook<T>(client: WebhookPoster, body: Buffer, timeoutMs: number, backoff: Backoff,
  accept: (reply: Buffer) => T): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = backoff.initialMs;
  for (let attempt = 1; ; attempt++) {
    let failure: string;
    let retry = false;
    try {
      const reply = await client.post(body, Math.max(1, deadline - Date.now()));
      if (reply.status >= 200 && reply.status < 300) return accept(reply.body);
      failure = `the webhook answered HTTP ${reply.status}`;
      retry = [429, 500, 504].includes(reply.status) || reply.headers['retry-after'] !== undefined;
    } catch (err) {
      if (err instanceof WebhookCallFailed) throw err;
      const e = err as NodeJS.ErrnoException;
      failure = e.code === 'ETIMEDOUT' ? `timed out after ${timeoutMs} ms` : `the call failed: ${e.message}`;
      retry = e.code === 'ECONNRESET';
    }
    const wait = delay * (1 + Math.random() * backoff.jitter);
    if (!retry || attempt >= backoff.steps || Date.now() + wait >= deadline) {
      throw new WebhookCallFailed(attempt > 1 ? `${failure} (${attempt} attempts)` : failure);
    }
    await sleep(wait);
    delay *= backoff.factor;
  }
}

/** A reply's body as the review object sent back (JSON, same apiVersion and kind), else WebhookCallFailed. */
export function replyReview(body: Buffer, apiVersion: string, kind: string): Record<string, unknown> {
  let review: unknown;
  try {
    review = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookCallFailed('the reply is not JSON');
  }
  if (!review || typeof review !== 'object' || Array.isArray(review)) throw new WebhookCallFailed('the reply is not a JSON object');
  const r = review as Record<string, unknown>;
  if (r.apiVersion !== apiVersion || r.kind !== kind) {
    throw new WebhookCallFailed(`the reply is ${JSON.stringify(r.apiVersion ?? '')} ${JSON.stringify(r.kind ?? '')}, not a ${apiVersion} ${kind}`);
  }
  return r;
}

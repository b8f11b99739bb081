/**
 * One proxied request over HTTP/1.1, for a backend whose ALPN did not take h2: Node's HTTPS
 * client on the pool entry's keep-alive agent, the body streamed with backpressure, the answer
 * handed over once its head is in. As Go's transport, a request that failed on a kept-alive
 * connection the backend had already closed is sent once more on a new one, when it can be.
 */
import https from 'node:https';
import type http from 'node:http';
import { dialErrorText } from '../kubelet/errors';
import { type AnswerSink, type BackendAnswer, type BackendRequest, type BodySource, type ConnectionTarget, HopError, type OnAbort } from './backend-exchange';

/**
 * Sends `req`; resolves with the answer once its head is in, rejects with a HopError.
 * `release` runs once the exchange is over after its head came; `connectionFailed` when the
 * connection failed (the pool asks ALPN again next time).
 */
export function sendHttp1(agent: https.Agent, target: ConnectionTarget, req: BackendRequest, retriable: boolean,
  onAbort: OnAbort, release: () => void, connectionFailed: () => void): Promise<BackendAnswer> {
  const attempt = (again: boolean) => new Promise<BackendAnswer>((resolve, reject) => {
    const request = https.request({
      host: target.host, port: target.port, method: req.method, path: req.path,
      headers: { ...req.headers, host: target.authority }, agent, servername: target.tls.servername,
    });
    request.setNoDelay(true);
    onAbort((err) => request.destroy(err));
    request.once('response', (message) => {
      request.once('close', release);
      resolve(new H1Answer(message, request));
    });
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof HopError) {
        reject(err);
        return;
      }
      if (again && request.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
        attempt(false).then(resolve, reject);
        return;
      }
      connectionFailed();
      reject(new HopError(dialErrorText(err, target.host, target.port), { cause: err }));
    });
    const body = req.body;
    if (body === undefined || Buffer.isBuffer(body)) request.end(body);
    else streamBody(body, request);
  });
  return attempt(retriable);
}

class H1Answer implements BackendAnswer {
  constructor(private readonly message: http.IncomingMessage, private readonly request: http.ClientRequest) {
    message.on('error', () => { /* the copy cuts the response */ });
  }

  get statusCode(): number {
    return this.message.statusCode ?? 502;
  }

  get headers(): http.IncomingHttpHeaders {
    return this.message.headers;
  }

  pipe(to: AnswerSink): void {
    const from = this.message;
    from.on('data', (chunk: Buffer) => { if (!to.write(chunk)) from.pause(); });
    to.on('drain', () => from.resume());
    from.on('end', () => to.end());
    from.on('error', () => to.destroy());
    to.on('close', () => { if (!from.complete) this.request.destroy(); });
  }

  discard(): void {
    this.message.resume();
  }

  destroy(): void {
    this.message.destroy();
  }
}

/** Copies a request body into `to` as it arrives, pausing the source while `to` is full. */
function streamBody(from: BodySource, to: http.ClientRequest): void {
  if (from.readableEnded) {
    to.end();
    return;
  }
  from.on('data', (chunk: Buffer) => { if (!to.write(chunk)) from.pause(); });
  to.on('drain', () => from.resume());
  from.on('end', () => to.end());
}

/**
 * One whole small answer from an APIService's backend for the discovery and OpenAPI fetchers:
 * resolved and verified as the proxy's requests are (BackendTransport.resolve, tlsOptions), but on
 * a connection of its own rather than the APIService's shared keep-alive agent, which is replaced
 * (and its sockets destroyed) on every change of the APIService: fetches started on every change
 * would otherwise cut the proxy's and the availability checks' requests in flight.
 */
import https from 'node:https';
import type http from 'node:http';
import type { ApiService } from './api-service';
import { BackendError, type BackendTransport, type FetchedAnswer } from './backend';

export interface DocumentRequest { path: string; headers: http.OutgoingHttpHeaders; timeoutMs: number }

export async function fetchDocument(transport: BackendTransport, svc: ApiService, req: DocumentRequest, maxBytes: number): Promise<FetchedAnswer> {
  const backend = await transport.resolve(svc);
  const host = backend.host.includes(':') ? `[${backend.host}]` : backend.host;
  return new Promise((resolve, reject) => {
    const request = https.request({
      ...transport.tlsOptions(svc, backend), host: backend.host, port: backend.port, method: 'GET', path: req.path,
      headers: { ...req.headers, host: `${host}:${backend.port}` }, agent: false,
    });
    const timer = setTimeout(() => request.destroy(new Error('net/http: request canceled (Client.Timeout exceeded while awaiting headers)')), req.timeoutMs);
    request.once('error', (err) => { clearTimeout(timer); reject(new BackendError('Unreachable', err.message)); });
    request.once('response', (answer) => {
      const chunks: Buffer[] = [];
      let size = 0;
      answer.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) {
          answer.destroy();
          clearTimeout(timer);
          reject(new BackendError('Unreachable', `response body larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(c);
      });
      answer.once('end', () => { clearTimeout(timer); resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: Buffer.concat(chunks) }); });
      answer.once('error', (err) => { clearTimeout(timer); reject(new BackendError('Unreachable', err.message)); });
    });
    request.end();
  });
}

/**
 * The health probes behind componentstatuses, as kube-apiserver 1.32's
 * pkg/registry/core/componentstatus does them: an HTTPS GET of a component's /healthz (the
 * certificate is not verified) and a read from etcd. A probe answers a Kubernetes probe result
 * and the message and error of the ComponentCondition:
 * - HTTP 2xx: Success, the body as message (`ok`); 3xx: Warning (Unknown); 4xx/5xx: Failure,
 *   `HTTP probe failed with statuscode: <code>`; no answer: Failure with Go's client error as
 *   the message (`Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect:
 *   connection refused`), which is where kubectl shows it;
 * - etcd: Success with message `ok`, or Failure with the error in `error`.
 */
import https from 'node:https';

export type ProbeResult = 'Success' | 'Warning' | 'Failure' | 'Unknown';

export interface ProbeOutcome { result: ProbeResult; message: string; error: string }

/** Go's net/http client error text for a failed dial or request to `url`. */
function goClientError(url: string, err: NodeJS.ErrnoException, host: string, port: number): string {
  const addr = `${host}:${port}`;
  switch (err.code) {
    case 'ECONNREFUSED': return `Get "${url}": dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET': return `Get "${url}": read tcp ${addr}: read: connection reset by peer`;
    case 'ETIMEDOUT': return `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
    default: return `Get "${url}": ${err.message}`;
  }
}

/** probe/http: GET `https://host:port/path`, certificate unchecked, within `timeoutMs`. */
export function probeHttps(host: string, port: number, path: string, timeoutMs: number): Promise<ProbeOutcome> {
  const url = `https://${host}:${port}${path}`;
  return new Promise((resolve) => {
    let done = false;
    const finish = (o: ProbeOutcome) => { if (!done) { done = true; resolve(o); } };
    const req = https.get({ host, port, path, rejectUnauthorized: false, timeout: timeoutMs, headers: { 'User-Agent': 'kube-probe/1.32', Accept: '*/*' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => { if (chunks.reduce((n, b) => n + b.length, 0) < 10_240) chunks.push(c); });
      res.on('error', (err) => finish({ result: 'Failure', message: goClientError(url, err, host, port), error: '' }));
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        const body = Buffer.concat(chunks).toString('utf8').slice(0, 10_240);
        if (code >= 200 && code < 300) finish({ result: 'Success', message: body, error: '' });
        else if (code >= 300 && code < 400) finish({ result: 'Warning', message: `Probe terminated redirects, Response body: ${body}`, error: '' });
        else finish({ result: 'Failure', message: `HTTP probe failed with statuscode: ${code}`, error: '' });
      });
    });
    req.on('timeout', () => {
      req.destroy();
      finish({ result: 'Failure', message: goClientError(url, Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }), host, port), error: '' });
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish({ result: 'Failure', message: goClientError(url, err, host, port), error: '' }));
  });
}

/** EtcdServer.DoServerCheck: `check` resolves within `timeoutMs` (Success, `ok`) or its error is the condition's error. */
export async function probeEtcd(check: () => Promise<unknown>, timeoutMs: number): Promise<ProbeOutcome> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('context deadline exceeded')), timeoutMs); }),
    ]);
    return { result: 'Success', message: 'ok', error: '' };
  } catch (err) {
    return { result: 'Failure', message: '', error: err instanceof Error ? err.message : String(err) };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

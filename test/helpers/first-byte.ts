/**
 * Time to the first response byte of requests each on a NEW TLS connection, over HTTP/1.1 or
 * HTTP/2, measured by curl as a script, a health checker or a user makes them (connect,
 * handshake, one GET, close). curl's own timers are used (`-w`), so its start-up does not count.
 *
 * curl and not Node's or Python's client: the ~40 ms HTTP/1.1 stall of issue 20 needs the
 * client's ACK of the server's TLS 1.3 session tickets to be delayed, and curl's write pattern
 * (Finished and request in separate segments, racing the tickets) gives that every time, where
 * Node's https client and Python's http.client happened not to on this machine.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ClientTls {
  ca: string;
  cert?: string;
  key?: string;
}

export interface FirstByte {
  /** From the start to the end of the TLS handshake, ms (curl's time_appconnect). */
  handshakeMs: number;
  /** From the start to the first byte of the answer, ms (curl's time_starttransfer). */
  firstByteMs: number;
  status: number;
}

export type Protocol = 'HTTP/1.1' | 'HTTP/2';

export function curlAvailable(): boolean {
  try {
    return /\bHTTP2\b/.test(execFileSync('curl', ['--version'], { encoding: 'utf8' }));
  } catch {
    return false;
  }
}

/** Writes the PEMs to a temp dir once; `close()` removes it. */
export function curlClient(tlsOpts: ClientTls) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orch-curl-'));
  const file = (name: string, pem?: string) => {
    if (!pem) return undefined;
    writeFileSync(path.join(dir, name), pem, { mode: 0o600 });
    return path.join(dir, name);
  };
  const ca = file('ca.crt', tlsOpts.ca)!;
  const cert = file('client.crt', tlsOpts.cert);
  const key = file('client.key', tlsOpts.key);
  return {
    /** One GET of `url` on a new connection (one curl per request, so nothing is reused). */
    firstByte(protocol: Protocol, url: string): Promise<FirstByte> {
      const args = ['-s', '-o', '/dev/null', protocol === 'HTTP/1.1' ? '--http1.1' : '--http2', '--cacert', ca,
        ...(cert && key ? ['--cert', cert, '--key', key] : []),
        '-H', 'Accept: application/json', '-w', '%{time_appconnect} %{time_starttransfer} %{http_code} %{http_version}', url];
      return new Promise((resolve, reject) => {
        execFile('curl', args, { encoding: 'utf8' }, (err, stdout) => {
          if (err) return reject(new Error(`curl ${protocol} ${url}: ${err.message}`));
          const [appconnect, starttransfer, code, version] = stdout.trim().split(' ');
          const want = protocol === 'HTTP/1.1' ? '1.1' : '2';
          if (version !== want) return reject(new Error(`curl ${protocol}: the server answered over HTTP/${version}`));
          resolve({ handshakeMs: Number(appconnect) * 1000, firstByteMs: Number(starttransfer) * 1000, status: Number(code) });
        });
      });
    },
    close() { rmSync(dir, { recursive: true, force: true }); },
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

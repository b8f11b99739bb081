/**
 * Micro-benchmark of the own HTTP/1.1 side's request path without sockets or TLS: an H1Connection
 * on a socket stand-in is fed batches of pipelined requests as kubectl sends them (a GET with
 * kubectl's fields, a POST with a JSON body, a chunked PUT), its handler answering each at once;
 * the figure is µs per request (head parsed, framing read, answer written).
 *
 *   node dist/test/bench/h1-parse.js [--against=/path/to/other/connection.js] [--rounds=10]
 *
 * With --against, another compiled connection.js (say, built from an earlier commit) runs in
 * alternate rounds in the same process, and the ratio of the medians is printed.
 */
import { EventEmitter } from 'node:events';
import { parseArgs } from 'node:util';
import type { TLSSocket } from 'node:tls';
import { H1Connection } from '../../lib/http1/connection';
import { listenerLimits } from '../../lib/server/listener-options';

type Ctor = typeof H1Connection;

class NullSocket extends EventEmitter {
  writableLength = 0;
  writableEnded = false;
  destroyed = false;
  write(_b: Buffer | string, cb?: () => void): boolean {
    if (cb) cb();
    return true;
  }
  end(): void { this.writableEnded = true; }
  destroy(): void { this.destroyed = true; }
  pause(): void {}
  resume(): void {}
  cork(): void {}
  uncork(): void {}
}

const BODY = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench', namespace: 'default', labels: { app: 'bench' } }, data: { key: 'v'.repeat(200) } });
const COMMON = 'Host: 127.0.0.1:6443\r\nUser-Agent: kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9\r\nKubectl-Command: kubectl get\r\n'
  + 'Kubectl-Session: 6f1c7c0e-2b7e-4c1e-9d3a-5b0f0e6a1c2d\r\nAccept-Encoding: gzip\r\nAuthorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789\r\n';
const REQUESTS = [
  `GET /api/v1/namespaces/default/pods?limit=500 HTTP/1.1\r\n${COMMON}Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json\r\n\r\n`,
  `POST /api/v1/namespaces/default/configmaps?fieldManager=kubectl-create HTTP/1.1\r\n${COMMON}Content-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
  `PUT /api/v1/namespaces/default/configmaps/bench HTTP/1.1\r\n${COMMON}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`,
];
const BATCH = 300;

/** µs per request over `batches` batches of BATCH pipelined requests (one read per batch). */
async function measure(ctor: Ctor, batches: number): Promise<number> {
  const input = Buffer.from(Array.from({ length: BATCH }, (_, i) => REQUESTS[i % REQUESTS.length]).join(''), 'latin1');
  const limits = listenerLimits({ http2MaxStreamsPerConnection: 0 });
  let total = 0;
  for (let b = 0; b < batches; b++) {
    const sock = new NullSocket();
    let answered = 0;
    const done = new Promise<void>((resolve) => {
      new ctor(sock as unknown as TLSSocket, limits, (req, res) => {
        req.on('data', () => undefined);
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
          res.end('{}');
          if (++answered === BATCH) resolve();
        });
      });
    });
    const started = process.hrtime.bigint();
    sock.emit('data', input);
    await done;
    total += Number(process.hrtime.bigint() - started);
  }
  return total / 1000 / (batches * BATCH);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { against: { type: 'string' }, rounds: { type: 'string', default: '10' } } });
  const rounds = Number(values.rounds);
  const sides: Array<[string, Ctor]> = [['this tree', H1Connection]];
  if (values.against) sides.push([values.against, (require(values.against) as { H1Connection: Ctor }).H1Connection]);
  for (const [, ctor] of sides) await measure(ctor, 20); // warm-up
  const results = sides.map((): number[] => []);
  for (let r = 0; r < rounds; r++) {
    for (let s = 0; s < sides.length; s++) results[s].push(await measure(sides[s][1], 30));
  }
  sides.forEach(([name], s) => console.log(`${name}: ${median(results[s]).toFixed(2)} µs/request (median of ${rounds} rounds of ${30 * BATCH})`));
  if (sides.length === 2) console.log(`ratio (other / this tree): ${(median(results[1]) / median(results[0])).toFixed(3)}`);
}

main().catch((err) => { console.error(err); process.exit(1); });

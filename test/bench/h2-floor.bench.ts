/**
 * What node:http2's server costs per request, against a floor: three bare h2c servers
 * (h2-floor-server.ts) answer POSTs of 1.3 KB at c=64 from one client session, in alternating
 * rounds: node:http2's compatibility API (what the server uses), its core stream API, and a
 * frame-level responder on the etcd client's own HTTP/2 code (lib/http2). Rows:
 * each server's CPU per request; the ratios say how much of node:http2's cost a server side of
 * our own could save (the frame-level responder has no request or response objects, so it is a
 * lower bound). Run on request: `node dist/test/bench/run.js --only=h2-floor`.
 */
import { fork, ChildProcess } from 'node:child_process';
import http2 from 'node:http2';
import path from 'node:path';
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { timedLoop } from './latency';

const NAME = 'h2-floor';
const CONCURRENCY = 64;
const MODES = ['compat', 'core', 'frames'] as const;
type Mode = typeof MODES[number];
const BODY = Buffer.alloc(1300, 'x');

interface Child { proc: ChildProcess; port: number }

async function startChild(mode: Mode): Promise<Child> {
  const proc = fork(path.join(__dirname, 'h2-floor-server.js'), [mode], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m) => resolve(m as number));
    proc.once('exit', (code) => reject(new Error(`${NAME}: the ${mode} server exited (${code})`)));
  });
  return { proc, port };
}

function cpuOf(child: Child): Promise<number> {
  return new Promise((resolve) => {
    child.proc.once('message', (m) => resolve((m as { cpu: number }).cpu));
    child.proc.send('cpu');
  });
}

function post(session: http2.ClientHttp2Session): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json' });
    req.on('data', () => undefined);
    req.on('end', () => resolve());
    req.on('error', reject);
    req.end(BODY);
  });
}

/** POSTs at c=64 for `ms`; the number completed. */
async function loop(session: http2.ClientHttp2Session, ms: number): Promise<number> {
  const r = await timedLoop(() => post(session), { durationMs: ms, maxIterations: Infinity, minIterations: 0, concurrency: CONCURRENCY });
  return r.samples.length;
}

export const h2FloorBench: Benchmark = {
  name: NAME,
  description: 'node:http2 server (compatibility and core API) against a frame-level responder on our HTTP/2 code: CPU per POST at c=64, h2c',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const rounds = ctx.quick ? 2 : 4;
    const roundMs = ctx.quick ? 1_000 : 3_000;
    const totals = new Map<Mode, { requests: number; cpuUs: number }>(MODES.map((m) => [m, { requests: 0, cpuUs: 0 }]));
    for (let round = 0; round < rounds; round++) {
      for (const mode of round % 2 ? [...MODES].reverse() : MODES) {
        ctx.log(`${NAME}: ${mode}, round ${round + 1}/${rounds}`);
        const child = await startChild(mode);
        const session = http2.connect(`http://127.0.0.1:${child.port}`);
        try {
          await loop(session, ctx.quick ? 300 : 1_000); // warm-up
          const before = await cpuOf(child);
          const requests = await loop(session, roundMs);
          const cpu = (await cpuOf(child)) - before;
          const t = totals.get(mode)!;
          t.requests += requests;
          t.cpuUs += cpu;
        } finally {
          session.close();
          child.proc.kill();
        }
      }
    }
    const perRequest = (m: Mode) => totals.get(m)!.cpuUs / totals.get(m)!.requests;
    const compat = perRequest('compat');
    return MODES.map((m) => ({
      benchmark: NAME, metric: `${m}: server CPU per request`, unit: 'us', value: Number(perRequest(m).toFixed(1)),
      baseline: Number(compat.toFixed(1)), ratio: Number((compat / perRequest(m)).toFixed(2)),
      note: `${totals.get(m)!.requests} POSTs of 1.3 KB at c=${CONCURRENCY} over one h2c session in ${rounds} rounds; `
        + 'baseline: the compatibility API (what the server uses); ratio > 1: less CPU than it',
    }));
  },
};

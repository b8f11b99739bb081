/**
 * Idle watches (issue 19 item 4): 10,000 watches (100 HTTP/2 sessions x 100 streams; quick:
 * 20 x 100) on ConfigMaps of one namespace, held idle ~30 s (quick: 5 s) against the server
 * process. Reports the server's RSS before and after and per watch, then writes one ConfigMap and
 * reports how many of the watches got its ADDED event and how long that took (p50, p99, max).
 */
import http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { processMemory, settledRss } from './process-memory';
import { recordResult } from '../helpers/process-client';

const NAME = 'idle-watches';
const NAMESPACE = 'bench-idle-watches';
const STREAMS_PER_SESSION = 100;
/** Sessions connected at once while the watches are being opened. */
const SESSIONS_IN_PARALLEL = 10;
const MIB = 2 ** 20;

interface Watch {
  /** performance.now() when the marker's ADDED event arrived. */
  gotAt?: number;
}

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);

export const idleWatchesBench: Benchmark = {
  name: NAME,
  description: '10,000 idle watches (100 HTTP/2 sessions x 100 streams) held ~30 s: server RSS per watch, one event delivered to all',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const sessionsCount = ctx.quick ? 20 : 100;
    const holdMs = ctx.quick ? 5_000 : 30_000;
    const total = sessionsCount * STREAMS_PER_SESSION;
    const conn = ctx.env.server;
    const api = ctx.env.apiClient(1);
    await api.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    const list = JSON.parse((await api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps`)).body.toString('utf8'));
    const rv = list.metadata.resourceVersion as string;
    const pid = ctx.env.serverPid;
    const settle = async () => (await settledRss(pid, 4, 250)).min;
    const rssBefore = await settle();

    const sessions: http2.ClientHttp2Session[] = [];
    const watches: Watch[] = [];
    const marker = 'marker';
    let failed = 0;
    let cut = 0;
    const openSession = async () => {
      const s = http2.connect(conn.url, { ca: conn.ca, cert: conn.cert, key: conn.key });
      s.on('error', () => undefined);
      sessions.push(s);
      await Promise.all(Array.from({ length: STREAMS_PER_SESSION }, () => new Promise<void>((resolve) => {
        const w: Watch = {};
        const stream = s.request({ ':method': 'GET', ':path': `/api/v1/namespaces/${NAMESPACE}/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=1800`, accept: 'application/json' });
        let buf = '';
        stream.setEncoding('utf8');
        stream.on('response', (h) => {
          if (h[':status'] !== 200) failed++;
          else watches.push(w);
          resolve();
        });
        stream.on('data', (c: string) => {
          buf += c;
          if (w.gotAt === undefined && buf.includes(`"name":"${marker}"`)) w.gotAt = performance.now();
        });
        stream.on('error', () => { failed++; resolve(); });
        stream.on('close', () => { if (stream.rstCode) cut++; });
        stream.end();
      })));
    };
    const openStarted = performance.now();
    for (let i = 0; i < sessionsCount; i += SESSIONS_IN_PARALLEL) {
      await Promise.all(Array.from({ length: Math.min(SESSIONS_IN_PARALLEL, sessionsCount - i) }, openSession));
    }
    const openMs = performance.now() - openStarted;
    ctx.log(`${NAME}: ${watches.length} watches open in ${Math.round(openMs)} ms (${failed} failed); holding ${holdMs / 1000} s`);
    const rssOpened = processMemory(pid).rss;
    await new Promise((r) => setTimeout(r, holdMs));
    const rssHeld = await settle();

    const writtenAt = performance.now();
    const created = await api.json('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: marker }, data: { a: 'b' } });
    void created;
    const createMs = performance.now() - writtenAt;
    const deadline = Date.now() + 60_000;
    while (watches.some((w) => w.gotAt === undefined) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const latencies = watches.filter((w) => w.gotAt !== undefined).map((w) => w.gotAt! - writtenAt).sort((a, b) => a - b);
    const reached = latencies.length;
    for (const s of sessions) s.destroy();

    const perWatchKiB = (rssHeld - rssBefore) / Math.max(1, watches.length) / 1024;
    const figures = {
      watches: watches.length, sessions: sessionsCount, streamsPerSession: STREAMS_PER_SESSION, openFailed: failed, cutWhileIdle: cut,
      openMs: Math.round(openMs), holdMs, rssBeforeMiB: +(rssBefore / MIB).toFixed(1), rssOpenedMiB: +(rssOpened / MIB).toFixed(1),
      rssAfterHoldMiB: +(rssHeld / MIB).toFixed(1), perWatchKiB: +perWatchKiB.toFixed(2), eventReached: reached,
      eventLatencyP50Ms: +quantile(latencies, 0.5).toFixed(1), eventLatencyP99Ms: +quantile(latencies, 0.99).toFixed(1),
      eventLatencyMaxMs: +(latencies[latencies.length - 1] ?? NaN).toFixed(1), eventLatencyMinMs: +(latencies[0] ?? NaN).toFixed(1),
      createMs: +createMs.toFixed(1),
    };
    recordResult('idle-watches', figures);
    const row = (metric: string, unit: string, value: number, extra: Partial<ResultRow> = {}): ResultRow => ({ benchmark: NAME, metric, unit, value, ...extra });
    return [
      row(`idle watches open (${sessionsCount} sessions x ${STREAMS_PER_SESSION})`, 'watches', watches.length, { baseline: total, ratio: watches.length / total, ...target('= all', watches.length === total), note: `opened in ${Math.round(openMs)} ms` }),
      row('server RSS before the watches', 'MiB', figures.rssBeforeMiB),
      row(`server RSS after ${holdMs / 1000} s idle`, 'MiB', figures.rssAfterHoldMiB, { note: `${figures.rssOpenedMiB} MiB right after opening` }),
      row('server RSS per idle watch', 'KiB', figures.perWatchKiB),
      row('one event reached', 'watches', reached, { baseline: watches.length, ratio: reached / Math.max(1, watches.length), ...target('= all', reached === watches.length && watches.length > 0) }),
      row('event latency to all watches p50', 'ms', figures.eventLatencyP50Ms, { note: `from the create request (which took ${figures.createMs} ms); min ${figures.eventLatencyMinMs} ms` }),
      row('event latency to all watches p99', 'ms', figures.eventLatencyP99Ms, { note: `max ${figures.eventLatencyMaxMs} ms` }),
    ];
  },
};

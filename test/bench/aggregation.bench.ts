/**
 * Benchmark: the aggregation layer's proxy hop. GETs of one aggregated object through the server
 * (authentication, authorization and priority and fairness here, then the proxy to the backend
 * over TLS with the front-proxy client certificate and X-Remote-* identity, as kube-aggregator
 * forwards) against GETs of a local ConfigMap of the same server, and against the backend's own
 * GET of the same object sent to it directly (the same front-proxy certificate and identity, so
 * the backend does the same work). The backend is Kubernetes' sample-apiserver 1.20.2 with an
 * etcd of its own when build.sh has cached it, else the test extension server
 * (test/helpers/extension-apiserver.ts, objects in memory); every row names which. Sides run in
 * interleaved rounds whose order alternates; ratios are of the same run and never asserted.
 * Target (issue 43): the proxy hop (p50 via the server minus the backend's own p50, at c=1)
 * costs less than the backend's own work.
 */
import { readFileSync } from 'node:fs';
import { Dispatcher, Pool } from 'undici';
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops, timedLoop } from './latency';
import { processCpuSeconds } from './cpu-usage';
import { startExtensionServer, ExtensionServer } from '../helpers/extension-apiserver';
import { SampleApiserverSetup, WARDLE_GROUP, WARDLE_NAMESPACE, WARDLE_SERVICE } from '../control-plane/sample-apiserver-harness';

const NAME = 'aggregation';
const NS = WARDLE_NAMESPACE;
const CONCURRENCIES = [1, 16];
const ROUNDS = 4;
const TEST_GROUP = 'widgets.example.test';

type Side = 'aggregated' | 'configmap' | 'direct';
const SIDES: Side[] = ['aggregated', 'configmap', 'direct'];

/** A keep-alive client to one origin with fixed extra headers; resolves with the status once the body has arrived. */
class Getter {
  private readonly pool: Pool;
  constructor(origin: string, tls: { ca: string | Buffer; cert: Buffer; key: Buffer; servername?: string }, connections: number, private readonly headers: Record<string, string> = {}) {
    this.pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000, connect: tls });
  }
  async get(path: string): Promise<void> {
    const res = await this.pool.request({ method: 'GET' as Dispatcher.HttpMethod, path, headers: { accept: 'application/json', ...this.headers } });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
  }
  close(): Promise<void> { return this.pool.destroy(); }
}

export const aggregationBench: Benchmark = {
  name: NAME,
  description: 'GET of an aggregated object through the server vs a local ConfigMap GET vs the backend\'s own GET (sample-apiserver if built)',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 1_500 : 8_000;
    const rounds = ctx.quick ? 2 : ROUNDS;
    const setup = new SampleApiserverSetup();
    const getters: Getter[] = [];
    let ext: ExtensionServer | undefined;
    try {
      ctx.log(`${NAME}: starting etcd and the server with the front-proxy flags`);
      await setup.startServer({ serverNodeArgs: ctx.serverNodeArgs, serverArgs: [...ctx.serverArgs, '--log-level=error'] });
      const files = setup.files!;
      await setup.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, true);
      let backendName: string;
      let objectPath: string;
      let backendPort: number;
      let backendCa: string;
      if (SampleApiserverSetup.binaryPresent()) {
        ctx.log(`${NAME}: starting sample-apiserver`);
        backendName = 'sample-apiserver 1.20.2';
        await setup.startSample();
        await setup.register();
        backendPort = setup.samplePort;
        backendCa = setup.servingCa!.certPem;
        objectPath = `/apis/${WARDLE_GROUP}/v1alpha1/namespaces/${NS}/flunders/bench-flunder`;
        await setup.waitAvailable(90_000);
        await setup.must('POST', `/apis/${WARDLE_GROUP}/v1alpha1/namespaces/${NS}/flunders`,
          { apiVersion: `${WARDLE_GROUP}/v1alpha1`, kind: 'Flunder', metadata: { name: 'bench-flunder', labels: { bench: 'aggregation' } }, spec: {} });
      } else {
        ctx.log(`${NAME}: sample-apiserver is not built (test/control-plane/build.sh): the test extension server is the backend`);
        backendName = 'test extension server (in memory)';
        ext = await startExtensionServer({ group: TEST_GROUP, version: 'v1alpha1', service: WARDLE_SERVICE, namespace: NS,
          frontProxyCaPem: readFileSync(files.frontProxyCa, 'utf8'), allowedNames: ['front-proxy-client'] });
        await setup.register({ port: ext.port, caPem: ext.caPem, group: TEST_GROUP, versions: [{ version: 'v1alpha1', versionPriority: 15 }] });
        backendPort = ext.port;
        backendCa = ext.caPem;
        objectPath = `/apis/${TEST_GROUP}/v1alpha1/namespaces/${NS}/widgets/bench-widget`;
        await setup.waitAvailable(90_000);
        await setup.must('POST', `/apis/${TEST_GROUP}/v1alpha1/namespaces/${NS}/widgets`,
          { apiVersion: `${TEST_GROUP}/v1alpha1`, kind: 'Widget', metadata: { name: 'bench-widget', labels: { bench: 'aggregation' } }, spec: {} });
      }
      const serverPid = setup.server!.process.pid;
      // The test extension server runs in this process: its CPU cannot be told apart from the load generator's.
      const backendPid = ext ? undefined : setup.sample!.process.pid;
      const cmPath = `/api/v1/namespaces/${NS}/configmaps/bench-cm`;
      await setup.must('POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench-cm', labels: { bench: 'aggregation' } }, data: { k: 'v' } });

      const maxC = Math.max(...CONCURRENCIES);
      const viaServer = new Getter(setup.url, adminTls(setup), maxC);
      // The same identity the proxy asserts for the admin (its group system:masters: no SubjectAccessReview on either path).
      const direct = new Getter(`https://127.0.0.1:${backendPort}`, {
        ca: backendCa, cert: readFileSync(files.proxyClientCert), key: readFileSync(files.proxyClientKey), servername: `${WARDLE_SERVICE}.${NS}.svc`,
      }, maxC, { 'X-Remote-User': 'bench-admin', 'X-Remote-Group': 'system:masters' });
      getters.push(viaServer, direct);
      const ops: Record<Side, () => Promise<void>> = {
        aggregated: () => viaServer.get(objectPath),
        configmap: () => viaServer.get(cmPath),
        direct: () => direct.get(objectPath),
      };
      ctx.log(`${NAME}: warming up (${backendName})`);
      for (const side of SIDES) await timedLoop(() => ops[side](), { durationMs: 0, maxIterations: 500, minIterations: 500, concurrency: 8 });

      const rows: ResultRow[] = [];
      for (const c of CONCURRENCIES) {
        const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 4 * c, concurrency: c };
        const results: Record<Side, LoopResult[]> = { aggregated: [], configmap: [], direct: [] };
        const cpu = { aggregated: newCpu(), configmap: newCpu(), direct: newCpu() };
        for (let round = 0; round < rounds; round++) {
          const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
          for (const side of order) {
            ctx.log(`${NAME}: GET c=${c}, round ${round + 1}/${rounds}, ${side}`);
            const s0 = processCpuSeconds(serverPid);
            const b0 = processCpuSeconds(backendPid);
            const r = await timedLoop(() => ops[side](), perRound);
            results[side].push(r);
            cpu[side].server += (processCpuSeconds(serverPid) ?? NaN) - (s0 ?? NaN);
            cpu[side].backend += (processCpuSeconds(backendPid) ?? NaN) - (b0 ?? NaN);
            cpu[side].ops += r.count;
          }
        }
        rows.push(...rowsOf(c, mergeLoops(results.aggregated), mergeLoops(results.configmap), mergeLoops(results.direct), backendName, cpu));
      }
      return rows;
    } finally {
      for (const g of getters) await g.close().catch(() => undefined);
      await ext?.stop().catch(() => undefined);
      await setup.stop(false);
    }
  },
};

interface Cpu { server: number; backend: number; ops: number }
const newCpu = (): Cpu => ({ server: 0, backend: 0, ops: 0 });
/** CPU microseconds per request. */
const perOp = (seconds: number, ops: number) => (1e6 * seconds) / ops;

function adminTls(setup: SampleApiserverSetup): { ca: Buffer; cert: Buffer; key: Buffer } {
  const tls = setup.adminTls();
  return { ca: tls.ca, cert: tls.cert, key: tls.key };
}

function rowsOf(c: number, agg: LoopResult, cm: LoopResult, direct: LoopResult, backend: string, cpu: Record<Side, Cpu>): ResultRow[] {
  const label = `GET c=${c}`;
  const rows: ResultRow[] = [
    {
      benchmark: NAME, metric: `${label} aggregated object via the server, throughput`, unit: 'ops/s', value: agg.opsPerSec, baseline: cm.opsPerSec,
      ratio: agg.opsPerSec / cm.opsPerSec, note: `backend: ${backend}; baseline: a local ConfigMap GET on the same server; ${agg.count} vs ${cm.count} ops`,
    },
    { benchmark: NAME, metric: `${label} aggregated object via the server, p50`, unit: 'ms', value: agg.p50, baseline: cm.p50, ratio: cm.p50 / agg.p50, note: 'baseline: local ConfigMap GET p50' },
    { benchmark: NAME, metric: `${label} aggregated object via the server, p99`, unit: 'ms', value: agg.p99, baseline: cm.p99, ratio: cm.p99 / agg.p99 },
    {
      benchmark: NAME, metric: `${label} backend's own GET (direct), throughput`, unit: 'ops/s', value: direct.opsPerSec, baseline: agg.opsPerSec,
      ratio: direct.opsPerSec / agg.opsPerSec, note: `backend: ${backend}, sent the same front-proxy identity; baseline: the same GET via the server`,
    },
    { benchmark: NAME, metric: `${label} backend's own GET (direct), p50`, unit: 'ms', value: direct.p50 },
  ];
  const serverAgg = perOp(cpu.aggregated.server, cpu.aggregated.ops);
  const serverCm = perOp(cpu.configmap.server, cpu.configmap.ops);
  const backendOwn = perOp(cpu.direct.backend, cpu.direct.ops);
  if (Number.isFinite(serverAgg)) {
    rows.push({
      benchmark: NAME, metric: `${label} server CPU per aggregated GET (the proxy hop)`, unit: 'µs', value: serverAgg, baseline: serverCm, ratio: serverCm / serverAgg,
      note: 'baseline: server CPU per local ConfigMap GET',
    });
  }
  if (Number.isFinite(serverAgg) && Number.isFinite(backendOwn)) {
    rows.push({
      benchmark: NAME, metric: `${label} backend CPU per GET (direct), against the server's per aggregated GET`, unit: 'µs', value: backendOwn, baseline: serverAgg,
      ratio: backendOwn / serverAgg, ...target('hop < backend (ratio > 1)', serverAgg < backendOwn),
      note: `backend: ${backend}; its CPU per GET sent to it directly, against the server's CPU per GET it proxies to it`,
    });
  }
  if (c === 1) {
    // Serial requests: the difference of the medians is the time the hop adds to one request.
    const hop = agg.p50 - direct.p50;
    rows.push({
      benchmark: NAME, metric: `${label} proxy hop (p50 via the server − backend's own p50)`, unit: 'ms', value: hop, baseline: direct.p50,
      ratio: direct.p50 / hop, ...target('< the backend\'s own p50', hop < direct.p50), note: `backend: ${backend}; baseline: the backend's own p50`,
    });
  }
  return rows;
}

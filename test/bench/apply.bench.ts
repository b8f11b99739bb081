/**
 * Benchmark C, apply: server-side apply of a ConfigMap with 100 keys by two field managers, each
 * owning 50 keys and applying new values every time, against a plain PUT of the same 100-key
 * object in the same run. Concurrency 1 and 16; at 16 each worker slot has its own pair of
 * objects, so the numbers measure the apply pipeline rather than compare-and-swap retries.
 */
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { ApiClient } from './api-client';
import { LoopResult, timedLoop } from './latency';
import { cpuMeter } from './cpu-usage';

const NAME = 'apply';
const NAMESPACE = 'bench-apply';
const KEYS = 100;
const APPLY = 'application/apply-patch+yaml';
const MANAGERS = ['bench-a', 'bench-b'] as const;
const CONCURRENCIES = [1, 16];
const base = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

const key = (i: number) => `key-${String(i).padStart(3, '0')}`;
/** The keys manager m (0 or 1) owns: the first or the second half. */
const keysOf = (m: number) => Array.from({ length: KEYS / 2 }, (_, i) => key(m * (KEYS / 2) + i));
const value = (iteration: string, k: string) => `value-${iteration}-${k}`;

function configMap(name: string, data: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

/** Manager m's apply configuration: its 50 keys, with values new to this iteration. */
function applyConfig(name: string, m: number, iteration: string) {
  return configMap(name, Object.fromEntries(keysOf(m).map((k) => [k, value(iteration, k)])));
}

/** The whole 100-key object with values new to this iteration. */
function fullObject(name: string, iteration: string) {
  return configMap(name, Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [key(i), value(iteration, key(i))])));
}

async function expectStatus(api: ApiClient, method: string, path: string, body: unknown, status: number, contentType?: string): Promise<any> {
  const res = await api.request(method, path, body, contentType);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status}, want ${status}: ${res.body.toString('utf8').slice(0, 300)}`);
  return JSON.parse(res.body.toString('utf8'));
}

/**
 * One apply by the manager whose turn it is on the object of this iteration's slot. `phase` keeps
 * values unique across loops, so no apply re-sends the live values (a write-free no-op).
 */
function applyOp(api: ApiClient, concurrency: number, phase: string) {
  return async (i: number) => {
    const slot = i % concurrency;
    const turn = Math.floor(i / concurrency);
    const name = `applied-${slot}`;
    const m = turn % 2;
    await expectStatus(api, 'PATCH', `${base}/${name}?fieldManager=${MANAGERS[m]}`, applyConfig(name, m, `${phase}-${i}`), 200, APPLY);
  };
}

function putOp(api: ApiClient, concurrency: number, phase: string) {
  return async (i: number) => {
    const name = `put-${i % concurrency}`;
    await expectStatus(api, 'PUT', `${base}/${name}?fieldManager=bench-put`, fullObject(name, `${phase}-${i}`), 200);
  };
}

/** Both managers own their halves (and nothing else), and all 100 keys are there. */
async function checkOwnership(api: ApiClient, name: string): Promise<void> {
  const obj = await expectStatus(api, 'GET', `${base}/${name}`, undefined, 200);
  if (Object.keys(obj.data ?? {}).length !== KEYS) throw new Error(`${name} has ${Object.keys(obj.data ?? {}).length} keys, want ${KEYS}`);
  const entries = (obj.metadata.managedFields ?? []) as Array<{ manager: string; operation: string; fieldsV1: any }>;
  MANAGERS.forEach((manager, m) => {
    const e = entries.find((x) => x.manager === manager && x.operation === 'Apply');
    const owned = Object.keys(e?.fieldsV1?.['f:data'] ?? {}).filter((k) => k.startsWith('f:')).map((k) => k.slice(2)).sort();
    if (owned.join() !== keysOf(m).join()) throw new Error(`${name}: ${manager} owns ${owned.length} keys, want its ${KEYS / 2}`);
  });
}

export const applyBench: Benchmark = {
  name: NAME,
  description: 'server-side apply of a 100-key ConfigMap by two managers (50 keys each) vs PUT of the same object; concurrency 1 and 16',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const durationMs = ctx.quick ? 5_000 : 15_000;
    const setup = ctx.env.apiClient(16);
    await setup.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    const slots = Math.max(...CONCURRENCIES);
    for (let s = 0; s < slots; s++) {
      await expectStatus(setup, 'POST', `${base}?fieldManager=bench-put`, fullObject(`put-${s}`, 'setup'), 201);
      // Both managers apply once (the first creates), so every measured apply is an update.
      await expectStatus(setup, 'PATCH', `${base}/applied-${s}?fieldManager=${MANAGERS[0]}`, applyConfig(`applied-${s}`, 0, 'setup'), 201, APPLY);
      await expectStatus(setup, 'PATCH', `${base}/applied-${s}?fieldManager=${MANAGERS[1]}`, applyConfig(`applied-${s}`, 1, 'setup'), 200, APPLY);
    }

    const rows: ResultRow[] = [];
    for (const concurrency of CONCURRENCIES) {
      const api = ctx.env.apiClient(concurrency);
      const loop = { durationMs, maxIterations: 1_000_000, minIterations: 10 * concurrency, concurrency };
      // Untimed warm-up of both paths (connections, JIT).
      await timedLoop(putOp(api, concurrency, `warm${concurrency}`), { ...loop, durationMs: 500, minIterations: concurrency });
      await timedLoop(applyOp(api, concurrency, `warm${concurrency}`), { ...loop, durationMs: 500, minIterations: 2 * concurrency });

      ctx.log(`${NAME}: PUT, concurrency ${concurrency}, ${durationMs / 1000} s`);
      let meter = cpuMeter(ctx.env.serverPid);
      const put: LoopResult = await timedLoop(putOp(api, concurrency, `run${concurrency}`), loop);
      const putCpu = meter();
      ctx.log(`${NAME}: apply, concurrency ${concurrency}, ${durationMs / 1000} s`);
      meter = cpuMeter(ctx.env.serverPid);
      const applied: LoopResult = await timedLoop(applyOp(api, concurrency, `run${concurrency}`), loop);
      const applyCpu = meter();
      for (let s = 0; s < concurrency; s++) await checkOwnership(setup, `applied-${s}`);

      const label = `apply 100 keys, 2 managers (c=${concurrency})`;
      const cpu = (c: { server?: number; generator: number }) => `server ${c.server?.toFixed(0) ?? '?'}%, generator ${c.generator.toFixed(0)}%`;
      rows.push({
        benchmark: NAME, metric: `${label} throughput`, unit: 'ops/s', value: applied.opsPerSec, baseline: put.opsPerSec,
        ratio: applied.opsPerSec / put.opsPerSec,
        note: `baseline: PUT of the 100-key object; ${applied.count} applies vs ${put.count} PUTs; CPU apply ${cpu(applyCpu)}, PUT ${cpu(putCpu)}`,
      });
      for (const stat of ['p50', 'p99'] as const) {
        rows.push({ benchmark: NAME, metric: `${label} ${stat}`, unit: 'ms', value: applied[stat], baseline: put[stat], ratio: put[stat] / applied[stat] });
      }
    }
    return rows;
  },
};

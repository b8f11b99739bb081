/**
 * Two kinds compared on one server (the crd and workloads benchmarks): create and get
 * (resourceVersion=0) at one concurrency, objects of the measured kind against ConfigMaps whose
 * JSON is as long, in interleaved rounds whose order alternates so that neither side always runs
 * on a warmer or more loaded server. Rows: the measured side's throughput as a ratio of the
 * baseline's (with the target), and its p50 and p99 against the baseline's.
 */
import { BenchContext, ResultRow, target } from './benchmark';
import { Http2ApiClient } from './http2-api-client';
import { LoopOptions, LoopResult, mergeLoops, timedLoop } from './latency';

export interface Side {
  /** How the rows name it: `custom resource`, `Deployment`. */
  label: string;
  /** The collection to create in. */
  path: string;
  /** The object to create under `name`. */
  body(name: string, seq: number): unknown;
}

export interface Comparison {
  benchmark: string;
  measured: Side;
  baseline: Side;
  concurrency: number;
  rounds: number;
  /** The measured side's throughput as a share of the baseline's that meets the target (0.8: ≥ 0.8x). */
  target: number;
}

type Op = 'create' | 'get RV=0';

/** A ConfigMap in `namespace` whose JSON is `length` bytes long, for a baseline side. */
export function configMapOfLength(namespace: string, name: string, seq: number, length: number): Record<string, unknown> {
  const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { seq: String(seq), payload: '' } };
  base.data.payload = 'x'.repeat(Math.max(0, length - JSON.stringify(base).length));
  return base;
}

async function expectStatus(client: Http2ApiClient, method: string, path: string, body: unknown, status: number): Promise<void> {
  const res = await client.request(method, path, body);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status}, want ${status}: ${res.body.toString('utf8').slice(0, 300)}`);
}

async function loop(client: Http2ApiClient, side: Side, names: string[], op: Op, tag: string, opts: LoopOptions): Promise<LoopResult> {
  if (op === 'create') {
    return timedLoop(async (i) => {
      const name = `w-${tag}-${i}`;
      await expectStatus(client, 'POST', side.path, side.body(name, i), 201);
      names.push(name);
    }, opts);
  }
  return timedLoop((i) => expectStatus(client, 'GET', `${side.path}/${names[i % names.length]}?resourceVersion=0`, undefined, 200), opts);
}

/** Runs the comparison on `client` (after a warm-up of 300 creates per side) and returns its rows. */
export async function compareSides(ctx: BenchContext, client: Http2ApiClient, c: Comparison): Promise<ResultRow[]> {
  const cellMs = ctx.quick ? 2_000 : 10_000;
  const rounds = ctx.quick ? 2 : c.rounds;
  const sides = [c.measured, c.baseline];
  const names = new Map<Side, string[]>(sides.map((s) => [s, []]));
  for (const side of sides) {
    ctx.log(`${c.benchmark}: warming up ${side.label}`);
    await loop(client, side, names.get(side)!, 'create', 'warm', { durationMs: 0, maxIterations: 300, minIterations: 300, concurrency: 16 });
  }
  const rows: ResultRow[] = [];
  for (const op of ['create', 'get RV=0'] as Op[]) {
    const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * c.concurrency, concurrency: c.concurrency };
    const results = new Map<Side, LoopResult[]>(sides.map((s) => [s, []]));
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? [c.baseline, c.measured] : [c.measured, c.baseline]) {
        ctx.log(`${c.benchmark}: ${op} c=${c.concurrency}, round ${round + 1}/${rounds}, ${side.label}`);
        results.get(side)!.push(await loop(client, side, names.get(side)!, op, `r${round}`, perRound));
      }
    }
    const m = mergeLoops(results.get(c.measured)!);
    const b = mergeLoops(results.get(c.baseline)!);
    const ratio = m.opsPerSec / b.opsPerSec;
    const metric = `${op} c=${c.concurrency} ${c.measured.label}`;
    rows.push(
      {
        benchmark: c.benchmark, metric: `${metric} throughput`, unit: 'ops/s', value: m.opsPerSec, baseline: b.opsPerSec, ratio,
        ...target(`≥ ${c.target}x`, ratio >= c.target), note: `${m.count} vs ${b.count} ops; baseline: ${c.baseline.label}s of the same JSON size`,
      },
      { benchmark: c.benchmark, metric: `${metric} p50`, unit: 'ms', value: m.p50, baseline: b.p50, ratio: b.p50 / m.p50 },
      { benchmark: c.benchmark, metric: `${metric} p99`, unit: 'ms', value: m.p99, baseline: b.p99, ratio: b.p99 / m.p99 },
    );
  }
  return rows;
}

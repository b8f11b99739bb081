/**
 * Benchmark etcd-client: the storage layer alone (Etcd3Storage, no HTTP, no server), once on the
 * lean client written here and once on the etcd3 npm package (`--etcd-client=etcd3`), in this
 * process against the benchmark's etcd: create and get of 1 KiB values at concurrency 64, the two
 * clients in alternating rounds (as crud.bench.ts alternates the server and raw etcd3), so that
 * etcd's growing database and the machine's other load weigh on both alike.
 *
 * Rows: throughput (value: etcd3, baseline: lean, ratio etcd3/lean) and this process's CPU time
 * per operation, which is the client's own cost (the reason the lean client exists), with the
 * ratio etcd3/lean too. This is the "ratio of the two"; the faster one is the default.
 */
import { Benchmark, BenchContext, ResultRow } from './benchmark';
import { LoopOptions, LoopResult, mergeLoops, timedLoop } from './latency';
import { CpuAccumulator, CpuShares } from './cpu-usage';
import { Etcd3Storage } from '../../lib/storage/etcd3/store';
import { createEtcdKv } from '../../lib/storage/etcd3/kv-factory';
import { EtcdClientKind } from '../../lib/storage/etcd3/kv';

const NAME = 'etcd-client';
const CONCURRENCY = 64;
const ROUNDS = 4;
const KINDS: EtcdClientKind[] = ['lean', 'etcd3'];
type Op = 'create' | 'get';

interface Measured { result: LoopResult; cpu: CpuShares }

export const etcdClientBench: Benchmark = {
  name: NAME,
  description: 'the storage layer alone on the lean etcd client vs the etcd3 package: create/get of 1 KiB at c=64, alternating rounds',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 2_000 : 12_000;
    const rounds = ctx.quick ? 2 : ROUNDS;
    const value = Buffer.alloc(1024, 'v');
    const storages = Object.fromEntries(KINDS.map((k) => [k, new Etcd3Storage(createEtcdKv(k, { endpoints: [ctx.env.etcdEndpoint] }))])) as Record<EtcdClientKind, Etcd3Storage>;
    const keys: Record<EtcdClientKind, string[]> = { lean: [], etcd3: [] };
    const prefix = (k: EtcdClientKind) => `/bench-etcd-client/${k}/`;
    try {
      // Warm-up: connections and JIT on both sides.
      for (const k of KINDS) {
        await timedLoop(async (i) => { await storages[k].create(`${prefix(k)}warm-${i}`, value); }, { durationMs: 0, maxIterations: 500, minIterations: 500, concurrency: 16 });
      }
      const rows: ResultRow[] = [];
      for (const op of ['create', 'get'] as Op[]) {
        const perRound: LoopOptions = { durationMs: cellMs / rounds, maxIterations: 10_000_000, minIterations: 2 * CONCURRENCY, concurrency: CONCURRENCY };
        const results: Record<EtcdClientKind, LoopResult[]> = { lean: [], etcd3: [] };
        const cpu = Object.fromEntries(KINDS.map((k) => [k, new CpuAccumulator(undefined, ctx.env.etcdPid)])) as Record<EtcdClientKind, CpuAccumulator>;
        for (let round = 0; round < rounds; round++) {
          // Alternate which side goes first, too.
          for (const k of round % 2 ? [...KINDS].reverse() : KINDS) {
            ctx.log(`${NAME}: ${op} c=${CONCURRENCY}, ${k}, round ${round + 1}/${rounds}`);
            const s = storages[k];
            const ks = keys[k];
            cpu[k].start();
            const r = op === 'create'
              ? await timedLoop(async (i) => {
                const key = `${prefix(k)}${round}-${i}`;
                const res = await s.create(key, value);
                if (!res.ok) throw new Error(`create of ${key} lost its compare`);
                ks.push(key);
              }, perRound)
              : await timedLoop(async (i) => {
                const got = await s.get(ks[i % ks.length]);
                if (!got.kv) throw new Error('a created key is missing');
              }, perRound);
            cpu[k].stop();
            results[k].push(r);
          }
        }
        rows.push(...rowsOf(op, { lean: { result: mergeLoops(results.lean), cpu: cpu.lean.shares() }, etcd3: { result: mergeLoops(results.etcd3), cpu: cpu.etcd3.shares() } }));
      }
      return rows;
    } finally {
      for (const k of KINDS) await storages[k].close().catch(() => undefined);
    }
  },
};

/** CPU milliseconds of this process per completed operation. */
const cpuMsPerOp = (m: Measured) => (m.cpu.generator / 100) / m.result.opsPerSec * 1000;
const pct = (share: number | undefined) => share?.toFixed(0) ?? '?';

function rowsOf(op: Op, m: Record<EtcdClientKind, Measured>): ResultRow[] {
  const label = `storage ${op} c=${CONCURRENCY}`;
  const note = `${m.etcd3.result.count} vs ${m.lean.result.count} ops; CPU % of a core: client process etcd3 ${pct(m.etcd3.cpu.generator)} / lean ${pct(m.lean.cpu.generator)}, `
    + `etcd ${pct(m.etcd3.cpu.etcd)} / ${pct(m.lean.cpu.etcd)}`;
  const leanCpu = cpuMsPerOp(m.lean);
  const etcd3Cpu = cpuMsPerOp(m.etcd3);
  return [
    {
      benchmark: NAME, metric: `${label}: etcd3/lean throughput`, unit: 'ops/s',
      value: m.etcd3.result.opsPerSec, baseline: m.lean.result.opsPerSec, ratio: m.etcd3.result.opsPerSec / m.lean.result.opsPerSec, note,
    },
    {
      benchmark: NAME, metric: `${label}: etcd3/lean client CPU per op`, unit: 'ms',
      value: etcd3Cpu, baseline: leanCpu, ratio: etcd3Cpu / leanCpu,
      note: 'CPU time of the process running the storage layer per operation; ratio > 1: the etcd3 package costs more',
    },
    {
      benchmark: NAME, metric: `${label}: etcd3/lean p99`, unit: 'ms',
      value: m.etcd3.result.p99, baseline: m.lean.result.p99, ratio: m.etcd3.result.p99 / m.lean.result.p99,
    },
  ];
}

/**
 * Benchmark D, crud: create, get (consistent and resourceVersion=0), update and delete of 1 KiB
 * ConfigMaps over HTTPS (HTTP/2, one TLS session, as client-go) at concurrency 1, 16 and 64,
 * each against the same operation done directly with etcd3 on the same etcd in the same run:
 * the transaction with the compare the server's storage uses, or a range of one key.
 * Create and get at concurrency 1 and 64 are also measured over HTTP/1.1 keep-alive (one
 * connection per request in flight: 64 at c=64, as python, curl and most tools connect), in the
 * same alternating rounds and against the same etcd3 baseline.
 */
import { Benchmark, BenchContext, matchesFocus, ResultRow, target } from './benchmark';
import { CrudSide, RawEtcdCrud, ServerCrud, Version } from './crud-sides';
import { LoopOptions, LoopResult, mergeLoops, timedLoop } from './latency';
import { CpuAccumulator, CpuShares } from './cpu-usage';

const NAME = 'crud';
const NAMESPACE = 'bench-crud';
/** The HTTP/1.1 side's objects (names are per side, so each side has its own namespace). */
const HTTP1_NAMESPACE = 'bench-crud-http1';
/** Outside the server's `/registry/` key space: no watch cache decodes the raw side's writes. */
const RAW_PREFIX = '/bench-raw/configmaps/bench-crud/';
const CONCURRENCIES = [1, 16, 64];
/** Targets (issue 7) hold at this concurrency: server rate / raw etcd3 rate. */
const TARGET_CONCURRENCY = 64;
/** Each measured cell alternates the two sides this many times (see measureCell); once in --quick. */
const ROUNDS = 4;
/** The cells also measured over HTTP/1.1 keep-alive (issue 19 item 8, issue 20). */
const HTTP1_OPS: readonly Op[] = ['create', 'get'];
const HTTP1_CONCURRENCIES = [1, 64];
/** Sockets of the HTTP/1.1 client: one per request in flight at the highest concurrency. */
const HTTP1_SOCKETS = 64;
/** Untimed operations of each kind per side before the first cell (200 in --quick). */
const WARM_UP_OPS = 2_000;

type Op = 'create' | 'get' | 'get RV=0' | 'update' | 'delete';

const OPS: Record<Op, { label: string; baseline: string; target: number }> = {
  create: { label: 'create', baseline: 'etcd txn create_revision==0 -> put', target: 0.7 },
  get: { label: 'get (consistent)', baseline: 'etcd range of the key', target: 1 },
  'get RV=0': { label: 'get (RV=0)', baseline: 'etcd range of the key', target: 2 },
  update: { label: 'update (PUT with resourceVersion)', baseline: 'etcd txn mod_revision==rv -> put', target: 0.7 },
  delete: { label: 'delete (precondition resourceVersion)', baseline: 'etcd txn mod_revision==rv -> delete', target: 0.7 },
};

/** One side's objects: name -> current version. */
type Objects = Map<string, Version>;

interface Cell {
  op: Op;
  concurrency: number;
  server: LoopResult;
  raw: LoopResult;
  cpu: CpuShares;
  rawCpu: CpuShares;
  /** The same operation over HTTP/1.1 keep-alive, when this cell has it. */
  http1?: LoopResult;
  http1Cpu?: CpuShares;
  /** The loop stopped because every object was deleted, before its time was up. */
  exhausted?: boolean;
  /**
   * Each round's rate over the raw side's rate in the same round (server, and HTTP/1.1 when
   * measured): the spread of the cell's ratio. Absent with one round or a shared raw measurement.
   */
  roundRatios?: { server: number[]; http1?: number[] };
}

export const crudBench: Benchmark = {
  name: NAME,
  description: 'create/get/get RV=0/update/delete of 1 KiB ConfigMaps at concurrency 1, 16, 64 (create/get at 1, 64 also over HTTP/1.1 keep-alive) vs the same etcd3 txn/range',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cellMs = ctx.quick ? 1_000 : 10_000;
    const setup = ctx.env.apiClient(4);
    for (const name of [NAMESPACE, HTTP1_NAMESPACE]) await setup.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const etcd = ctx.env.etcdClient();
    const server = new ServerCrud(ctx.env.http2ApiClient(1), NAMESPACE);

    // The raw side's values are copies of what the server stored for one ConfigMap of this benchmark.
    const probe = 'stored-shape';
    await server.create(probe, 0);
    const stored = await etcd.kv.range({ key: Buffer.from(`/registry/configmaps/${NAMESPACE}/${probe}`) });
    if (stored.kvs.length !== 1) throw new Error('the server did not store the ConfigMap under /registry/configmaps/');
    const sides: Sides = {
      server, raw: new RawEtcdCrud(etcd, RAW_PREFIX, stored.kvs[0].value), http1: new ServerCrud(ctx.env.apiClient(HTTP1_SOCKETS), HTTP1_NAMESPACE),
    };
    ctx.log(`${NAME}: stored value ${stored.kvs[0].value.length} bytes; warming up`);
    // At the highest concurrency, so that every HTTP/1.1 connection is open (its TLS handshake and
    // client-certificate check done) and the code of every side compiled before anything is timed.
    const warm = ctx.quick ? 200 : WARM_UP_OPS;
    for (const side of [sides.server, sides.raw, sides.http1]) await warmUp(side, HTTP1_SOCKETS, warm);

    const focused = (op: Op, c: number) => !ctx.focus || matchesFocus(`${OPS[op].label} c=${c}`, ctx.focus);
    const cells: Cell[] = [];
    for (const c of CONCURRENCIES) {
      const wanted = (Object.keys(OPS) as Op[]).filter((op) => focused(op, c));
      if (!wanted.length) continue;
      const loop: LoopOptions = { durationMs: cellMs, maxIterations: 10_000_000, minIterations: 2 * c, concurrency: c };
      const objects: Record<SideName, Objects> = { server: new Map(), raw: new Map(), http1: new Map() };
      let rawGet: { result: LoopResult; cpu: CpuShares } | undefined;
      for (const op of ['create', 'get', 'get RV=0', 'update', 'delete'] as Op[]) {
        // Create always runs (the other cells need objects), in full only when measured or when delete needs many.
        const measured = wanted.includes(op);
        if (!measured && op !== 'create') continue;
        const opts = measured || wanted.includes('delete') ? loop : { ...loop, durationMs: 0 };
        ctx.log(`${NAME}: ${OPS[op].label}, concurrency ${c}${measured ? `, ${opts.durationMs / 1000} s per side` : ' (setup)'}`);
        // Both server gets are compared with one measurement of the raw range (it has one kind of read).
        const http1 = HTTP1_OPS.includes(op) && HTTP1_CONCURRENCIES.includes(c);
        const cell = await measureCell(ctx, sides, objects, op, c, opts, op === 'get RV=0' ? rawGet : undefined, http1);
        if (op === 'get') rawGet = { result: cell.raw, cpu: cell.rawCpu };
        if (measured) cells.push(cell);
      }
    }
    return cells.flatMap(rowsOf);
  },
};

/**
 * Runs `op` on the raw side (unless `rawDone` already has it) and on the server, in alternating
 * rounds with the same loop options split between them: whatever drifts during a run (etcd's
 * database grows with every write of either side, the machine's other load) weighs on both sides
 * alike, instead of on whichever side runs second.
 */
async function measureCell(ctx: BenchContext, sides: Sides, objects: Record<SideName, Objects>,
  op: Op, c: number, loop: LoopOptions, rawDone?: { result: LoopResult; cpu: CpuShares }, http1 = false): Promise<Cell> {
  const rounds = loop.durationMs > 0 && !ctx.quick ? ROUNDS : 1;
  const perRound: LoopOptions = { ...loop, durationMs: loop.durationMs / rounds, minIterations: Math.ceil(loop.minIterations / rounds) };
  const results: Record<SideName, LoopResult[]> = { server: [], raw: [], http1: [] };
  const cpu: Record<SideName, CpuAccumulator> = {
    server: new CpuAccumulator(ctx.env.serverPid, ctx.env.etcdPid), raw: new CpuAccumulator(undefined, ctx.env.etcdPid),
    http1: new CpuAccumulator(ctx.env.serverPid, ctx.env.etcdPid),
  };
  const order: SideName[] = [...(rawDone ? [] : ['raw' as const]), 'server', ...(http1 ? ['http1' as const] : [])];
  let exhausted = false;
  for (let round = 0; round < rounds; round++) {
    for (const side of order) {
      cpu[side].start();
      const r = await runOp(sides[side], objects[side], op, c, perRound, round);
      cpu[side].stop();
      results[side].push(r.result);
      exhausted ||= r.exhausted;
    }
  }
  // A round with nothing done on either side (deletes, once every object is gone) has no ratio.
  const perRoundRatios = (side: SideName) => results[side].map((r, i) => {
    const raw = results.raw[i].opsPerSec;
    return r.opsPerSec > 0 && raw > 0 ? r.opsPerSec / raw : NaN;
  });
  return {
    op, concurrency: c, server: mergeLoops(results.server), raw: rawDone?.result ?? mergeLoops(results.raw),
    cpu: cpu.server.shares(), rawCpu: rawDone?.cpu ?? cpu.raw.shares(), exhausted,
    ...(http1 ? { http1: mergeLoops(results.http1), http1Cpu: cpu.http1.shares() } : {}),
    ...(rounds > 1 && !rawDone ? { roundRatios: { server: perRoundRatios('server'), ...(http1 ? { http1: perRoundRatios('http1') } : {}) } } : {}),
  };
}

/** `; ratio per round: 0.97, 1.04, ...` for a row's note, or nothing. */
function roundsNote(ratios: number[] | undefined): string {
  return ratios?.length ? `; ratio per round: ${ratios.map((r) => (Number.isNaN(r) ? 'none' : r.toFixed(2))).join(', ')}` : '';
}

type SideName = 'server' | 'raw' | 'http1';
type Sides = Record<SideName, CrudSide>;

/** One loop of `op` on one side; create adds to `objects`, update changes versions, delete removes. */
async function runOp(side: CrudSide, objects: Objects, op: Op, c: number, loop: LoopOptions, round: number): Promise<{ result: LoopResult; exhausted: boolean }> {
  const names = [...objects.keys()];
  switch (op) {
    case 'create':
      return {
        result: await timedLoop(async (i) => {
          const name = `c${c}-${round}-${i}`;
          objects.set(name, await side.create(name, i));
        }, loop),
        exhausted: false,
      };
    case 'get':
    case 'get RV=0':
      return { result: await timedLoop((i) => side.get(names[i % names.length], op === 'get RV=0'), loop), exhausted: false };
    case 'update': {
      // c objects for c workers: a free list hands each operation an object nobody else is writing.
      const free = names.slice(0, c);
      if (free.length < c) throw new Error(`update needs ${c} objects, have ${free.length}`);
      return {
        result: await timedLoop(async (i) => {
          const name = free.pop()!;
          // Data new to every write of the run (rounds restart i).
          objects.set(name, await side.update(name, objects.get(name)!, round * 100_000_000 + i));
          free.push(name);
        }, loop),
        exhausted: false,
      };
    }
    case 'delete': {
      const result = await timedLoop(async (i) => {
        await side.delete(names[i], objects.get(names[i])!);
        objects.delete(names[i]);
      }, { ...loop, maxIterations: names.length, minIterations: Math.min(loop.minIterations, names.length) });
      return { result, exhausted: result.count === names.length && result.elapsedMs < loop.durationMs };
    }
  }
}

/** An untimed pass of every operation (connections, JIT) on `count` objects of its own. */
async function warmUp(side: CrudSide, c: number, count: number): Promise<void> {
  const objects: Objects = new Map();
  const loop = { durationMs: 0, maxIterations: count, minIterations: count, concurrency: c };
  await timedLoop(async (i) => { objects.set(`warm-${i}`, await side.create(`warm-${i}`, i)); }, loop);
  for (const op of ['get', 'get RV=0', 'update', 'delete'] as Op[]) await runOp(side, objects, op, c, loop, 0);
}

const pct = (share: number | undefined) => share?.toFixed(0) ?? '?';

function rowsOf(cell: Cell): ResultRow[] {
  const { op, concurrency: c, server, raw } = cell;
  const spec = OPS[op];
  const label = `${spec.label} c=${c}`;
  const ratio = server.opsPerSec / raw.opsPerSec;
  const note = `${server.count} vs ${raw.count} ops${cell.exhausted ? ' (every object deleted before the time was up)' : ''}; `
    + `baseline: ${spec.baseline}; CPU % of a core: server ${pct(cell.cpu.server)}, etcd ${pct(cell.cpu.etcd)}, load generator ${pct(cell.cpu.generator)} `
    + `(etcd3 run: etcd ${pct(cell.rawCpu.etcd)}, load generator ${pct(cell.rawCpu.generator)})${roundsNote(cell.roundRatios?.server)}`;
  const rows: ResultRow[] = [
    {
      benchmark: NAME, metric: `${label} throughput`, unit: 'ops/s', value: server.opsPerSec, baseline: raw.opsPerSec, ratio,
      ...(c === TARGET_CONCURRENCY ? target(`≥ ${spec.target}x`, ratio >= spec.target) : {}), note,
    },
    { benchmark: NAME, metric: `${label} p50`, unit: 'ms', value: server.p50, baseline: raw.p50, ratio: raw.p50 / server.p50 },
    { benchmark: NAME, metric: `${label} p99`, unit: 'ms', value: server.p99, baseline: raw.p99, ratio: raw.p99 / server.p99 },
  ];
  const h1 = cell.http1;
  if (h1) {
    const h1Label = `${label} HTTP/1.1`;
    const h1Ratio = h1.opsPerSec / raw.opsPerSec;
    const h1Cpu = cell.http1Cpu!;
    rows.push(
      {
        benchmark: NAME, metric: `${h1Label} throughput`, unit: 'ops/s', value: h1.opsPerSec, baseline: raw.opsPerSec, ratio: h1Ratio,
        ...(c === TARGET_CONCURRENCY ? target(`≥ ${spec.target}x`, h1Ratio >= spec.target) : {}),
        note: `${h1.count} vs ${raw.count} ops over ${Math.min(c, HTTP1_SOCKETS)} keep-alive connection(s); HTTP/2 row: ${server.opsPerSec.toFixed(0)} ops/s `
          + `(HTTP/1.1 / HTTP/2 = ${(h1.opsPerSec / server.opsPerSec).toFixed(2)}); baseline: ${spec.baseline}; `
          + `CPU % of a core: server ${pct(h1Cpu.server)}, etcd ${pct(h1Cpu.etcd)}, load generator ${pct(h1Cpu.generator)}${roundsNote(cell.roundRatios?.http1)}`,
      },
      { benchmark: NAME, metric: `${h1Label} p50`, unit: 'ms', value: h1.p50, baseline: raw.p50, ratio: raw.p50 / h1.p50 },
      { benchmark: NAME, metric: `${h1Label} p99`, unit: 'ms', value: h1.p99, baseline: raw.p99, ratio: raw.p99 / h1.p99 },
    );
  }
  return rows;
}

/**
 * Benchmark (issue 45): density against kube-apiserver 1.20.2 on the same machine, in the same
 * invocation. For each side (density-side.ts): a fresh etcd, the API server, the real
 * kube-controller-manager and kube-scheduler, H hollow nodes, then Deployments totalling P pods
 * created at a steady rate until all are Running, then deleted until none is left. Rows: pods/s,
 * the API server's CPU seconds per 1,000 pods and peak RSS as ratios orch/kube with the issue's
 * targets, every SLO (API call p99 by class, pod startup p99) per side, and the p50/p99 of each
 * verb and resource from `apiserver_request_duration_seconds` (both sides, each phase).
 * Needs root (hollow nodes run under unshare) and build.sh's binaries. With
 * --server-node-arg=--cpu-prof --server-node-arg=--cpu-prof-dir=DIR this project's server writes
 * a CPU profile of its whole run (its pid is in the log, and in the profile's file name).
 */
import { Benchmark, BenchContext, ResultRow, target } from './benchmark';
import { DensityPlan, PhaseResult, runSide, SideName, SideResult } from './density-side';
import { Histogram, Histograms, observations, onSharedBounds, quantile, SLO_CLASSES, worstP99 } from './request-histograms';

const NAME = 'density';
/**
 * Deployments of 20 pods, one every 250 ms: 80 pods/s offered, more than either side turns into
 * Running pods here, so that pods/s measures the cluster and not the offered rate (one every 1 s,
 * 20 pods/s, was reached by kube-apiserver at 18.2 pods/s).
 */
const FULL: DensityPlan = { nodes: 20, deployments: 30, replicas: 20, intervalMs: 250, phaseTimeoutMs: 600_000 };
const QUICK: DensityPlan = { nodes: 4, deployments: 4, replicas: 20, intervalMs: 250, phaseTimeoutMs: 300_000 };
const POD_STARTUP_SLO_MS = 5_000;
const TARGETS = { podsPerSec: 1.2, cpuPer1000Pods: 0.6, peakRss: 0.4 };

const MiB = 2 ** 20;
const ms = (seconds: number) => seconds * 1000;
type Phase = 'create' | 'delete';

/** The ratio rows of one phase: this server's value, kube-apiserver's as the baseline. */
function comparisonRows(phase: Phase, pods: number, orch: PhaseResult, kube: PhaseResult): ResultRow[] {
  const until = phase === 'create' ? 'all pods Running' : 'no pod left';
  const rate = orch.podsPerSec / kube.podsPerSec;
  const cpu = (r: PhaseResult) => (1000 * r.cpuSeconds) / pods;
  const cpuShare = cpu(orch) / cpu(kube);
  const rssShare = orch.peakRss / kube.peakRss;
  return [
    { benchmark: NAME, metric: `${phase}: time until ${until}`, unit: 's', value: orch.seconds, baseline: kube.seconds, ratio: kube.seconds / orch.seconds },
    {
      benchmark: NAME, metric: `${phase}: pods/s ${phase === 'create' ? 'reaching Running' : 'deleted'}`, unit: 'pods/s', value: orch.podsPerSec, baseline: kube.podsPerSec, ratio: rate,
      ...(phase === 'create' ? target(`≥ ${TARGETS.podsPerSec}x kube`, rate >= TARGETS.podsPerSec) : {}),
    },
    {
      benchmark: NAME, metric: `${phase}: API server CPU s per 1,000 pods`, unit: 's', value: cpu(orch), baseline: cpu(kube), ratio: 1 / cpuShare,
      ...target(`≤ ${TARGETS.cpuPer1000Pods}x kube`, cpuShare <= TARGETS.cpuPer1000Pods),
      note: `${orch.cpuSeconds.toFixed(1)} vs ${kube.cpuSeconds.toFixed(1)} CPU s in all; orch/kube ${cpuShare.toFixed(2)}x`,
    },
    {
      benchmark: NAME, metric: `${phase}: API server peak RSS`, unit: 'MiB', value: orch.peakRss / MiB, baseline: kube.peakRss / MiB, ratio: 1 / rssShare,
      ...target(`≤ ${TARGETS.peakRss}x kube`, rssShare <= TARGETS.peakRss), note: `VmHWM over the phase; orch/kube ${rssShare.toFixed(2)}x`,
    },
  ];
}

/** Each SLO class's worst p99 on one side in one phase. */
function sloRows(phase: Phase, side: SideName, h: Histograms): ResultRow[] {
  return SLO_CLASSES.map((cls) => {
    const worst = worstP99(h, cls);
    const value = worst ? ms(worst.p99) : 0;
    return {
      benchmark: NAME, metric: `${phase}: ${side} SLO ${cls.name} p99 (worst series)`, unit: 'ms', value,
      ...target(`≤ ${cls.limitSeconds} s`, value <= ms(cls.limitSeconds)),
      note: worst ? `${worst.key}, n=${worst.n}` : 'no such calls',
    };
  });
}

function startupRows(r: SideResult): ResultRow[] {
  const s = r.startup;
  return [{
    benchmark: NAME, metric: `create: ${r.side} pod startup p99 (creationTimestamp → Running seen by a watch)`, unit: 'ms', value: s.fromCreation.p99,
    ...target(`≤ ${POD_STARTUP_SLO_MS / 1000} s`, s.fromCreation.p99 <= POD_STARTUP_SLO_MS),
    note: `p50 ${s.fromCreation.p50.toFixed(0)} ms, n=${s.fromCreation.count}; from the watch's first sight: p50 ${s.fromFirstSeen.p50.toFixed(0)}, p99 ${s.fromFirstSeen.p99.toFixed(0)} ms (creationTimestamp has whole seconds)`,
  }];
}

/**
 * p99 (value: this server, baseline: kube-apiserver) of every verb and resource either side served
 * in the phase, both on the bucket bounds the two servers share (onSharedBounds); p50s in the note.
 */
function seriesRows(phase: Phase, orch: Histograms, kube: Histograms): ResultRow[] {
  const keys = [...new Set([...orch.keys(), ...kube.keys()])].filter((k) => !/^(WATCH|WATCHLIST|CONNECT) /.test(k)).sort();
  const anyOrch = orch.values().next().value;
  const anyKube = kube.values().next().value;
  const shared = (h: Histogram | undefined, other: Histogram | undefined) => (h && other ? onSharedBounds(h, other) : h);
  return keys.map((key) => {
    const o = shared(orch.get(key), anyKube);
    const k = shared(kube.get(key), anyOrch);
    const q = (h: Histogram | undefined, p: number) => (h ? ms(quantile(h, p)) : NaN);
    const fmt = (v: number) => (Number.isNaN(v) ? '-' : v.toFixed(1));
    return {
      benchmark: NAME, metric: `${phase}: ${key} p99`, unit: 'ms', value: q(o, 0.99), baseline: q(k, 0.99), ratio: q(k, 0.99) / q(o, 0.99),
      note: `p50 ${fmt(q(o, 0.5))} vs ${fmt(q(k, 0.5))} ms; n=${o ? observations(o) : 0} vs ${k ? observations(k) : 0}`,
    };
  });
}

export const densityBench: Benchmark = {
  name: NAME,
  description: 'hollow nodes, kube-controller-manager and kube-scheduler 1.20 with Deployments of P pods: this server vs kube-apiserver 1.20.2 (needs root)',
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const plan = ctx.quick ? QUICK : FULL;
    const pods = plan.deployments * plan.replicas;
    const results: SideResult[] = [];
    for (const side of ['orch-apiserver', 'kube-apiserver'] as SideName[]) {
      results.push(await runSide(side, { plan, serverNodeArgs: ctx.serverNodeArgs, log: ctx.log }));
    }
    const [orch, kube] = results;
    const rows: ResultRow[] = [{
      benchmark: NAME, metric: 'hollow nodes (H), pods (P)', unit: 'nodes', value: plan.nodes,
      note: `P=${pods}: ${plan.deployments} Deployments of ${plan.replicas}, one every ${plan.intervalMs} ms; hollow node RSS ${(orch.hollowNodeRss / MiB).toFixed(0)} MiB (with kube: ${(kube.hollowNodeRss / MiB).toFixed(0)} MiB)`,
    }];
    for (const phase of ['create', 'delete'] as Phase[]) {
      rows.push(...comparisonRows(phase, pods, orch[phase], kube[phase]));
      for (const r of results) rows.push(...sloRows(phase, r.side, r[phase].histograms));
      if (phase === 'create') for (const r of results) rows.push(...startupRows(r));
    }
    for (const phase of ['create', 'delete'] as Phase[]) rows.push(...seriesRows(phase, orch[phase].histograms, kube[phase].histograms));
    return rows;
  },
};

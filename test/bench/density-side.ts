/**
 * One side of the density benchmark: an API server (this project's or kube-apiserver 1.20.2) on a
 * fresh etcd with the real kube-controller-manager, kube-scheduler and hollow kubelets
 * (test/control-plane/cluster.ts), then two measured phases: Deployments created at a steady rate
 * until every pod is Running, and the Deployments deleted until no pod is left. Each phase
 * measures its wall time, the API server's CPU seconds and peak RSS (VmHWM, reset at the phase's
 * start through /proc/<pid>/clear_refs), and what its `apiserver_request_duration_seconds` added.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { ControlPlaneCluster } from '../control-plane/cluster';
import type { Obj } from '../control-plane/checks';
import { ApiClient, loadKubeconfig } from './api-client';
import { processCpuSeconds } from './cpu-usage';
import { processMemory } from './process-memory';
import { diffHistograms, Histograms, parseHistograms } from './request-histograms';
import { PodTracker } from './pod-tracker';
import { LatencySummary, summarize } from './latency';

export type SideName = 'orch-apiserver' | 'kube-apiserver';

export interface DensityPlan {
  nodes: number;
  deployments: number;
  replicas: number;
  /** One Deployment created (and later deleted) every this many ms. */
  intervalMs: number;
  /** How long a phase may take before the side fails. */
  phaseTimeoutMs: number;
}

export interface PhaseResult {
  /** From the first Deployment request to the last pod seen Running (create) or deleted (delete). */
  seconds: number;
  podsPerSec: number;
  cpuSeconds: number;
  /** VmHWM over the phase, bytes. */
  peakRss: number;
  histograms: Histograms;
}

export interface SideResult {
  side: SideName;
  create: PhaseResult;
  delete: PhaseResult;
  /** Pod startup in ms: creationTimestamp -> Running, and the watch's first sight -> Running. */
  startup: { fromCreation: LatencySummary; fromFirstSeen: LatencySummary };
  /** Mean VmRSS of a hollow node at the end of the create phase, bytes. */
  hollowNodeRss: number;
  serverPid?: number;
}

const NAMESPACE = 'density';
const IMAGE = 'registry.k8s.io/pause:3.2';
const POLL_MS = 250;
/**
 * The client rate limits density tests give the controller-manager and the scheduler (clusterloader2's
 * kubemark setup): with 1.20's defaults (20 and 50 requests/s) the ReplicaSet controller's pod creates
 * wait in its own client ("Throttling request took 1s") and cap both sides at the same rate.
 */
const COMPONENT_QPS = ['--kube-api-qps=100', '--kube-api-burst=100'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function deployment(name: string, replicas: number): Record<string, unknown> {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NAMESPACE },
    spec: {
      replicas, selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'pause', image: IMAGE }] } },
    },
  };
}

/** Polls `check` every `POLL_MS` until it is true; throws `what` with the components' log tails after `timeoutMs`. */
async function until(cluster: ControlPlaneCluster, what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs / 1000} s\n${cluster.tails(5)}`);
    await sleep(POLL_MS);
  }
}

/** Resets the process's peak RSS (VmHWM) to its current RSS (Linux 4.0+). */
function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function vmRss(pid: number | undefined): number {
  const m = pid === undefined ? null : /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

export interface SideOptions {
  plan: DensityPlan;
  /** Node flags for this project's server (e.g. --cpu-prof); not for kube-apiserver. */
  serverNodeArgs: string[];
  log(msg: string): void;
}

export async function runSide(side: SideName, o: SideOptions): Promise<SideResult> {
  const { plan, log } = o;
  const names = Array.from({ length: plan.nodes }, (_, i) => `density-node-${i}`);
  const cluster = new ControlPlaneCluster({ nodeNames: names, apiserver: side, serverNodeArgs: side === 'orch-apiserver' ? o.serverNodeArgs : [] });
  let failed = true;
  let tracker: PodTracker | undefined;
  let client: ApiClient | undefined;
  try {
    ControlPlaneCluster.checkBinaries();
    await cluster.startServer();
    const pid = cluster.serverPid!;
    log(`density: ${side} ready (pid ${pid}); starting kube-controller-manager, kube-scheduler and ${plan.nodes} hollow nodes`);
    await cluster.startControlPlane({ controllerManager: COMPONENT_QPS, scheduler: COMPONENT_QPS });
    await cluster.startNodes();
    const conn = loadKubeconfig(cluster.adminKubeconfig);
    const api = client = new ApiClient(conn, 8);
    await until(cluster, `${plan.nodes} nodes Ready`, 300_000, async () => {
      const nodes: Obj[] = (await api.json('GET', '/api/v1/nodes')).items;
      return nodes.filter((n) => (n.status?.conditions as Obj[] | undefined)?.some((c) => c.type === 'Ready' && c.status === 'True')).length === plan.nodes;
    });
    await until(cluster, 'kube-controller-manager and kube-scheduler leading', 120_000, async () => {
      for (const l of ['kube-controller-manager', 'kube-scheduler']) {
        const r = await api.request('GET', `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${l}`);
        if (r.status !== 200 || !JSON.parse(r.body.toString()).spec?.holderIdentity) return false;
      }
      return true;
    });
    await api.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }, 201);
    await until(cluster, `the default ServiceAccount of ${NAMESPACE}`, 60_000, async () =>
      (await api.request('GET', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/default`)).status === 200);
    const pods = tracker = new PodTracker(conn, NAMESPACE);
    await pods.start();
    const hollowNodeRss = () => cluster.nodes.reduce((s, n) => s + vmRss(n.process.pid), 0) / cluster.nodes.length;
    const total = plan.deployments * plan.replicas;

    /** Sends one request per Deployment at the plan's rate, then waits for `done`; measures around both. */
    const phase = async (label: string, send: (name: string) => Promise<void>, done: () => boolean, end: () => number): Promise<PhaseResult> => {
      const before = parseHistograms((await api.request('GET', '/metrics')).body.toString());
      resetPeakRss(pid);
      const cpu0 = processCpuSeconds(pid)!;
      const t0 = Date.now();
      log(`density: ${side}: ${label}`);
      for (let i = 0; i < plan.deployments; i++) {
        await send(`density-${i}`);
        await sleep(t0 + (i + 1) * plan.intervalMs - Date.now());
      }
      await until(cluster, `${label}: ${side}`, plan.phaseTimeoutMs, async () => { await pods.check(); return done(); });
      const seconds = (end() - t0) / 1000;
      const cpuSeconds = processCpuSeconds(pid)! - cpu0;
      const peakRss = processMemory(pid).peakRss;
      const after = parseHistograms((await api.request('GET', '/metrics')).body.toString());
      log(`density: ${side}: ${label} took ${seconds.toFixed(1)} s, ${cpuSeconds.toFixed(1)} CPU s, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
      return { seconds, podsPerSec: total / seconds, cpuSeconds, peakRss, histograms: diffHistograms(after, before) };
    };

    const create = await phase(`${plan.deployments} Deployments of ${plan.replicas} until ${total} pods Running`,
      async (name) => { await api.json('POST', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, deployment(name, plan.replicas), 201); },
      () => pods.running >= total, () => pods.lastRunning);
    const startups = pods.startups();
    const rss = hollowNodeRss();
    const del = await phase(`deleting the Deployments until no pod is left`,
      async (name) => { await api.json('DELETE', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${name}`, { propagationPolicy: 'Background' }); },
      () => pods.live === 0, () => pods.lastGone);
    failed = false;
    return {
      side, create, delete: del, hollowNodeRss: rss, serverPid: pid,
      startup: { fromCreation: summarize(Float64Array.from(startups.fromCreation)), fromFirstSeen: summarize(Float64Array.from(startups.fromFirstSeen)) },
    };
  } finally {
    tracker?.close();
    await client?.close();
    await cluster.stop(failed);
    if (failed) log(`density: ${side}: logs kept in ${cluster.logDir}`);
  }
}

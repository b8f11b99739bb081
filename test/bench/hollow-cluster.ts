/**
 * A cluster for the benchmarks that need real Kubernetes clients: the control-plane suite's
 * ControlPlaneCluster (test/control-plane/cluster.ts: the server as a kube-apiserver 1.20 is
 * started, kube-controller-manager, kube-scheduler and hollow kubelets) with H hollow nodes,
 * waited on until every node is Ready, and Deployments of pause pods spread over them, waited on
 * until every pod is Running. The benchmark's own requests go over one admin ApiClient.
 * Needs root (unshare, mount, /etc/hosts) and the cached 1.20.2 binaries (test/control-plane/build.sh).
 */
import { ControlPlaneCluster } from '../control-plane/cluster';
import { ApiClient, loadKubeconfig } from './api-client';

export interface HollowClusterOptions {
  /** Hollow nodes: `<prefix>-0` .. `<prefix>-<nodes - 1>`. */
  nodes: number;
  prefix: string;
  serverArgs?: string[];
  serverNodeArgs?: string[];
  log(msg: string): void;
}

export interface HollowCluster {
  cluster: ControlPlaneCluster;
  nodeNames: string[];
  /** The admin's client (2 connections). */
  api: ApiClient;
  /** Stops every process and removes the run directory (kept, and its path logged, when `keep` or $KEEP_CONTROL_PLANE). */
  stop(keep: boolean): Promise<void>;
}

const POLL_MS = 2_000;

/** Starts the cluster and waits (at most `readyTimeoutMs`) until every hollow node is Ready; stops it again on failure. */
export async function startHollowCluster(o: HollowClusterOptions, readyTimeoutMs = 300_000): Promise<HollowCluster> {
  if (process.getuid?.() !== 0) throw new Error('hollow nodes need root (unshare -m, mount --rbind, /etc/hosts)');
  ControlPlaneCluster.checkBinaries();
  const nodeNames = Array.from({ length: o.nodes }, (_, i) => `${o.prefix}-${i}`);
  const cluster = new ControlPlaneCluster({ nodeNames, serverArgs: o.serverArgs, serverNodeArgs: o.serverNodeArgs });
  let api: ApiClient | undefined;
  const stop = async (failed: boolean) => {
    const keep = failed || !!process.env.KEEP_CONTROL_PLANE;
    await api?.close();
    if (keep) o.log(`cluster logs kept in ${cluster.logDir}`);
    await cluster.stop(keep);
  };
  try {
    await cluster.startServer();
    api = new ApiClient(loadKubeconfig(cluster.server!.kubeconfigPath), 2);
    await cluster.startControlPlane();
    o.log(`starting ${o.nodes} hollow nodes`);
    await cluster.startNodes();
    await until(`${o.nodes} nodes Ready`, readyTimeoutMs, async () => {
      const ready = (await api!.json('GET', '/api/v1/nodes')).items.filter(isReady).length;
      return ready === o.nodes ? true : `${ready} Ready`;
    }, cluster);
    return { cluster, nodeNames, api, stop };
  } catch (err) {
    await stop(true).catch(() => undefined);
    throw err;
  }
}

/** A node whose Ready condition is True. */
export function isReady(node: any): boolean {
  return (node.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
}

/**
 * Creates namespace `ns` and `deployments` Deployments (`<ns>-<i>`) of `replicas` pause pods each,
 * and waits (at most `timeoutMs`) until all their pods are Running.
 */
export async function runDeployments(h: HollowCluster, ns: string, deployments: number, replicas: number, timeoutMs = 600_000): Promise<void> {
  await h.api.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, 201);
  for (let i = 0; i < deployments; i++) {
    const name = `${ns}-${i}`;
    await h.api.json('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
      spec: {
        replicas, selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.2' }] } },
      },
    }, 201);
  }
  const want = deployments * replicas;
  await until(`${want} pods Running in ${ns}`, timeoutMs, async () => {
    const running = (await podsRunning(h, ns));
    return running === want ? true : `${running} Running`;
  }, h.cluster);
}

/** Pods of `ns` in phase Running and not being deleted. */
export async function podsRunning(h: HollowCluster, ns: string): Promise<number> {
  const pods = (await h.api.json('GET', `/api/v1/namespaces/${ns}/pods`)).items;
  return pods.filter((p: any) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp).length;
}

/** Polls `check` (true when done, else a word on how far) every POLL_MS until `timeoutMs`. */
async function until(what: string, timeoutMs: number, check: () => Promise<true | string>, cluster: ControlPlaneCluster): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const r = await check();
      if (r === true) return;
      last = r;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s (${last})\n${cluster.tails(5)}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

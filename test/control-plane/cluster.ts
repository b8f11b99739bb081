/**
 * A whole cluster for the control-plane suite: etcd, the server started with the flags a
 * kube-apiserver 1.20 control plane is started with (kube-apiserver-flags.ts), then
 * kube-controller-manager, kube-scheduler and hollow kubelets from the cached 1.20.2 build
 * (build.sh), each with its own identity. Everything lives in one temp directory whose `logs`
 * hold every component's output; the directory is removed after a run that passed, and kept
 * (its path printed) after one that failed.
 */
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startTestEtcd, TestEtcd } from '../helpers/etcd-harness';
import { startServerProcess, ServerProcess } from '../helpers/server-process';
import { freeLoopbackPort } from '../helpers/free-port';
import { Kubectl, kubectlFor } from '../helpers/kubectl';
import { Component, KUBE_BIN, KubeletFiles, startControllerManager, startHollowNode, startScheduler } from './components';
import { ControlPlaneFiles, identityKubeconfig, makeControlPlaneFiles } from './identities';
import { kubeApiserverFlags, serverOwnFlags, unsupported } from './kube-apiserver-flags';
import { mapNamesToLoopback } from './hosts';
import { startKubeApiserver } from './kube-apiserver';

export interface ClusterOptions {
  nodeNames: string[];
  /** The API server: this project's (default), or kube-apiserver 1.20.2 as the reference (the density benchmark). */
  apiserver?: 'orch-apiserver' | 'kube-apiserver';
  /** More server flags, after the kube-apiserver ones (a benchmark's --event-ttl, say); orch-apiserver only. */
  serverArgs?: string[];
  /** Node flags for the server process (--inspect, --cpu-prof); orch-apiserver only. */
  serverNodeArgs?: string[];
}

export class ControlPlaneCluster {
  readonly dir: string;
  readonly logDir: string;
  etcd?: TestEtcd;
  server?: ServerProcess;
  /** kube-apiserver, when it is the API server (opts.apiserver). */
  kubeApiserver?: Component;
  files?: ControlPlaneFiles;
  url = '';
  /** The API server's admin kubeconfig (system:masters). */
  adminKubeconfig = '';
  kubectl!: Kubectl;
  /** kube-apiserver flags the server refused (left out of its command line so the rest can run). */
  refusedFlags: string[] = [];
  /** --runtime-config entries naming a group version the server does not have (left out too). */
  unknownRuntimeConfig: string[] = [];
  controllerManager?: Component;
  scheduler?: Component;
  nodes: Component[] = [];
  readonly others: Component[] = [];
  /** Milliseconds each step of start() took, for the report. */
  readonly timings: Record<string, number> = {};
  private readonly unmapHosts: Array<() => void> = [];

  constructor(readonly opts: ClusterOptions) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'orch-cp-'));
    this.logDir = path.join(this.dir, 'logs');
    mkdirSync(this.logDir);
  }

  /** Throws when build.sh has not cached the binaries. */
  static checkBinaries(): void {
    for (const b of ['kube-controller-manager', 'kube-scheduler', 'kubemark', 'kubeadm']) {
      if (!existsSync(path.join(KUBE_BIN, b))) throw new Error(`${path.join(KUBE_BIN, b)} is missing: run test/control-plane/build.sh (make test-control-plane does)`);
    }
  }

  private async timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
    const t0 = Date.now();
    try {
      return await fn();
    } finally {
      this.timings[step] = Date.now() - t0;
    }
  }

  /** The API server's process id, whichever it is. */
  get serverPid(): number | undefined {
    return (this.server?.process ?? this.kubeApiserver?.process)?.pid;
  }

  /** etcd, then the server; ready once /readyz answers. */
  async startServer(): Promise<void> {
    const files = this.files = await makeControlPlaneFiles(this.dir);
    this.etcd = await this.timed('etcd', () => startTestEtcd());
    if (this.opts.apiserver === 'kube-apiserver') {
      const kube = await this.timed('server', () => startKubeApiserver(files, this.etcd!.endpoint, this.dir, this.logDir));
      this.kubeApiserver = kube.component;
      this.url = kube.url;
      this.adminKubeconfig = kube.kubeconfigPath;
      this.kubectl = kubectlFor(kube.kubeconfigPath, path.join(this.dir, 'kube-cache'), 60_000);
      return;
    }
    const kube = kubeApiserverFlags(files, this.etcd.endpoint);
    const { refused, unknownRuntimeConfig, accepted } = unsupported(kube);
    this.refusedFlags = refused;
    this.unknownRuntimeConfig = unknownRuntimeConfig;
    this.server = await this.timed('server', () => startServerProcess([...accepted, ...serverOwnFlags(files), ...(this.opts.serverArgs ?? [])],
      { timeoutMs: 60_000, nodeArgs: this.opts.serverNodeArgs }));
    // The server's request log beside the components' (who asked what, and what it answered).
    const serverLog = createWriteStream(path.join(this.logDir, 'server.log'));
    this.server.process.stderr!.on('data', (chunk: Buffer | string) => serverLog.write(chunk));
    this.server.process.once('exit', () => serverLog.end());
    const admin = parseYaml(readFileSync(this.server.kubeconfigPath, 'utf8')) as { clusters: Array<{ cluster: { server: string } }> };
    this.url = admin.clusters[0].cluster.server;
    this.adminKubeconfig = this.server.kubeconfigPath;
    this.kubectl = kubectlFor(this.server.kubeconfigPath, path.join(this.dir, 'kube-cache'), 60_000);
  }

  /** kube-controller-manager and kube-scheduler, each with its client certificate (and `extra` flags of each). */
  async startControlPlane(extra: { controllerManager?: string[]; scheduler?: string[] } = {}): Promise<void> {
    const files = this.files!;
    const kcmConfig = await identityKubeconfig(files, path.join(this.dir, 'controller-manager.kubeconfig'), this.url, 'system:kube-controller-manager');
    const schedConfig = await identityKubeconfig(files, path.join(this.dir, 'scheduler.kubeconfig'), this.url, 'system:kube-scheduler');
    const certDir = (n: string) => { const d = path.join(this.dir, n); mkdirSync(d, { recursive: true }); return d; };
    this.controllerManager = startControllerManager({
      kubeconfig: kcmConfig, caCert: files.pki.caCertFile, caKey: files.pki.caKeyFile, saKey: files.saKey, certDir: certDir('kcm-certs'),
    }, await freeLoopbackPort(), this.logDir, extra.controllerManager);
    this.scheduler = startScheduler(schedConfig, certDir('scheduler-certs'), await freeLoopbackPort(), this.logDir, extra.scheduler);
  }

  /**
   * One hollow kubelet per name, each with a client certificate system:node:<name> (group
   * system:nodes): made here, or with `bootstrapKubeconfig` (its text) requested by the kubelet
   * itself with that kubeconfig's bootstrap token (nodeDir(name)/pki then holds it).
   */
  async startNodes(opts: { bootstrapKubeconfig?: string } = {}): Promise<void> {
    for (const name of this.opts.nodeNames) {
      const nodeDir = this.nodeDir(name);
      if (opts.bootstrapKubeconfig) {
        writeFileSync(path.join(nodeDir, 'bootstrap-kubeconfig'), opts.bootstrapKubeconfig, { mode: 0o600 });
        await this.startNode(name, { kubeconfig: '/tmp/kubeconfig', bootstrapKubeconfig: '/tmp/bootstrap-kubeconfig', certDir: '/tmp/pki' });
      } else {
        await identityKubeconfig(this.files!, path.join(nodeDir, 'kubeconfig'), this.url, `system:node:${name}`, ['system:nodes']);
        await this.startNode(name);
      }
    }
  }

  /** One hollow kubelet, its name mapped to loopback, its files (made beforehand) in nodeDir(name). */
  async startNode(name: string, files?: KubeletFiles): Promise<Component> {
    this.unmapHosts.push(await mapNamesToLoopback([name]));
    const node = startHollowNode({ name, nodeDir: this.nodeDir(name), kubeletPort: await freePortPair(), logDir: this.logDir, files });
    this.nodes.push(node);
    return node;
  }

  /** A hollow node's directory (its /tmp), made when missing. */
  nodeDir(name: string): string {
    const dir = path.join(this.dir, 'nodes', name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** Another process of the run (kubeadm, say): stopped with the cluster, its log in tails(). */
  track(component: Component): Component {
    this.others.push(component);
    return component;
  }

  /** Writes `<dir>/<file>`: a kubeconfig that presents `token` alone (no client certificate). */
  async tokenKubeconfig(file: string, token: string): Promise<string> {
    const p = path.join(this.dir, file);
    const config = {
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: this.url, 'certificate-authority-data': Buffer.from(this.files!.pki.caCertPem).toString('base64') } }],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    };
    writeFileSync(p, JSON.stringify(config), { mode: 0o600 });
    return p;
  }

  /** The components' log tails, for failure messages. */
  tails(lines = 15): string {
    const parts = [this.kubeApiserver, this.controllerManager, this.scheduler, ...this.nodes, ...this.others].filter((c): c is Component => !!c)
      .map((c) => `--- ${c.name} (${c.logFile}):\n${c.tail(lines)}`);
    if (this.server) parts.push(`--- server stderr:\n${this.server.stderrTail()}`);
    return parts.join('\n');
  }

  /** Stops everything; removes the directory unless `keep`. */
  async stop(keep: boolean): Promise<void> {
    await Promise.all([...this.others, ...this.nodes, this.scheduler, this.controllerManager].map((c) => c?.stop()));
    for (const undo of this.unmapHosts) {
      try { undo(); } catch { /* /etc/hosts not writable any more: nothing to undo */ }
    }
    await this.server?.stop();
    await this.kubeApiserver?.stop();
    await this.etcd?.stop();
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A free port whose successor is free too (the kubelet's port and its read-only port). */
async function freePortPair(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const p = await freeLoopbackPort();
    if (p < 65535 && await portFree(p + 1)) return p;
  }
  throw new Error('no two consecutive free loopback ports');
}

async function portFree(port: number): Promise<boolean> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

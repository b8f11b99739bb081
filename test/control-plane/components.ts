/**
 * The Kubernetes 1.20 components of the control-plane suite as child processes:
 * kube-controller-manager, kube-scheduler and hollow kubelets (kubemark --morph=kubelet), each
 * logging to its own file in the run's directory (kept when a test fails: the logs tell which
 * request the server answered differently from kube-apiserver).
 * A hollow kubelet runs in a mount namespace of its own whose /tmp is its node directory (the fake
 * runtime always listens on /tmp/kubelet_remote.sock), with a failing `iptables` first on its PATH
 * so that it never touches the host's rules (../shared/CONTROL-PLANE.md).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where build.sh caches the binaries. */
export const KUBE_BIN = path.join(process.env.KUBE_CACHE ?? path.join(os.homedir(), '.cache/orch-apiserver/kube-1.20.2'), 'bin');

export interface Component {
  name: string;
  process: ChildProcess;
  logFile: string;
  /** The last `lines` lines of its log. */
  tail(lines?: number): string;
  /** Lines of its log that match `re`. */
  grep(re: RegExp): string[];
  /** SIGTERM, SIGKILL after 5 s; resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
}

/** Spawns `argv` with stdout and stderr appended to `<logDir>/<name>.log`. */
export function startComponent(name: string, argv: string[], logDir: string, env: NodeJS.ProcessEnv = process.env): Component {
  const logFile = path.join(logDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', fd, fd], env, detached: false });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopping: Promise<void> | undefined;
  const read = () => { try { return readFileSync(logFile, 'utf8'); } catch { return ''; } };
  return {
    name, process: child, logFile,
    tail: (lines = 30) => read().split('\n').slice(-lines - 1).join('\n'),
    grep: (re) => read().split('\n').filter((l) => re.test(l)),
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5_000).unref());
        if (await Promise.race([exited, timer]) === 'timeout') {
          child.kill('SIGKILL');
          await exited;
        }
      })();
      return stopping;
    },
  };
}

/** The flags a component takes for its identity (kubeconfig), serving port and leader election. */
function commonFlags(kubeconfig: string, securePort: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`, `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`,
    `--secure-port=${securePort}`, '--port=0', '--bind-address=127.0.0.1', '--leader-elect=true', '--v=2',
  ];
}

export interface ControllerManagerFiles {
  kubeconfig: string; caCert: string; caKey: string; saKey: string; certDir: string;
}

/** kube-controller-manager as a cluster runs it: service-account credentials per controller, the CA to sign CSRs; `extra` flags last. */
export function startControllerManager(f: ControllerManagerFiles, securePort: number, logDir: string, extra: string[] = []): Component {
  return startComponent('kube-controller-manager', [
    path.join(KUBE_BIN, 'kube-controller-manager'), ...commonFlags(f.kubeconfig, securePort),
    `--cert-dir=${f.certDir}`,
    '--use-service-account-credentials=true',
    `--cluster-signing-cert-file=${f.caCert}`, `--cluster-signing-key-file=${f.caKey}`,
    `--root-ca-file=${f.caCert}`, `--service-account-private-key-file=${f.saKey}`,
    '--controllers=*,bootstrapsigner,tokencleaner',
    // Faster than the defaults so that a drained or stopped node is seen within the suite's waits.
    '--node-monitor-grace-period=20s', '--pod-eviction-timeout=30s', ...extra,
  ], logDir);
}

export function startScheduler(kubeconfig: string, certDir: string, securePort: number, logDir: string, extra: string[] = []): Component {
  return startComponent('kube-scheduler', [
    path.join(KUBE_BIN, 'kube-scheduler'), ...commonFlags(kubeconfig, securePort), `--cert-dir=${certDir}`, ...extra,
  ], logDir);
}

/**
 * The kubelet's files, as paths it sees (its /tmp is the node directory). With
 * `bootstrapKubeconfig` (a bootstrap token), a kubelet joining as with kubeadm: when `kubeconfig`
 * is not there yet it requests its client certificate, keeps it in `certDir` and writes
 * `kubeconfig` to use it.
 */
export interface KubeletFiles { kubeconfig: string; bootstrapKubeconfig?: string; certDir?: string }

export interface HollowNodeOptions {
  name: string;
  /** The node's directory, its /tmp inside its mount namespace; it holds the kubelet's `files`. */
  nodeDir: string;
  kubeletPort: number;
  logDir: string;
  /** Default: /tmp/kubeconfig, made beforehand. */
  files?: KubeletFiles;
}

/**
 * A hollow kubelet (a real kubelet on kubemark's fake runtime). Its files are under /tmp: the
 * node directory is mounted over /tmp, which hides the run's directory when that is under /tmp
 * too. For a TLS bootstrap kubemark takes the kubelet's --bootstrap-kubeconfig and --cert-dir
 * (build.sh patches them in: kubemark 1.20 has no TLS bootstrap of its own).
 */
export function startHollowNode(o: HollowNodeOptions): Component {
  const bin = path.join(o.nodeDir, 'bin');
  mkdirSync(bin, { recursive: true });
  const stub = path.join(bin, 'iptables');
  writeFileSync(stub, '#!/bin/sh\n# hollow kubelets must not change the host\'s rules\nexit 1\n');
  chmodSync(stub, 0o755);
  for (const alias of ['ip6tables', 'iptables-save', 'iptables-restore', 'ip6tables-save', 'ip6tables-restore']) copyFileSync(stub, path.join(bin, alias));
  for (const alias of ['ip6tables', 'iptables-save', 'iptables-restore', 'ip6tables-save', 'ip6tables-restore']) chmodSync(path.join(bin, alias), 0o755);
  const files = o.files ?? { kubeconfig: '/tmp/kubeconfig' };
  const kubemark = [
    path.join(KUBE_BIN, 'kubemark'), '--morph=kubelet', `--name=${o.name}`, `--kubeconfig=${files.kubeconfig}`,
    `--kubelet-port=${o.kubeletPort}`, `--kubelet-read-only-port=${o.kubeletPort + 1}`,
    '--kube-api-content-type=application/vnd.kubernetes.protobuf', '--v=2',
    ...(files.bootstrapKubeconfig ? [`--bootstrap-kubeconfig=${files.bootstrapKubeconfig}`] : []),
    ...(files.certDir ? [`--cert-dir=${files.certDir}`] : []),
  ].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const env = { ...process.env, PATH: `/tmp/bin:${process.env.PATH ?? '/usr/bin:/bin'}`, TMPDIR: '/tmp' };
  return startComponent(o.name, [
    'unshare', '-m', '--propagation', 'private', 'sh', '-c', `mount --rbind '${o.nodeDir}' /tmp && exec ${kubemark}`,
  ], o.logDir, env);
}

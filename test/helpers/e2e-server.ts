/**
 * E2E set-up shared by the kubectl tests: a temp dir, the server process on its own embedded etcd
 * in it (test/helpers/server-process.ts), and the real kubectl against that server with a private
 * discovery cache (test/helpers/kubectl.ts).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { startServerProcess, ServerProcess } from './server-process';
import { Kubectl, kubectlFor, KubectlOptions, KubectlResult } from './kubectl';
import { LineProcess, spawnLines } from './line-process';

/** kubectlFor's default timeout, named in failure messages. */
const KUBECTL_DEFAULT_TIMEOUT_MS = 20_000;

/**
 * Runs kubectl and fails the test unless it exits 0, showing kubectl's stderr and, when given,
 * the last lines the server wrote.
 */
export async function expectKubectlOk(kubectl: Kubectl, args: string[], opts: KubectlOptions = {}, server?: ServerProcess): Promise<KubectlResult> {
  const r = await kubectl(args, opts);
  const why = r.timedOut ? `timed out after ${opts.timeoutMs ?? KUBECTL_DEFAULT_TIMEOUT_MS} ms` : 'failed';
  const serverTail = server ? `\nserver stderr (last lines):\n${server.stderrTail()}` : '';
  expect(r.code, `kubectl ${args.join(' ')} ${why}:\n${r.stderr}${serverTail}`).to.equal(0);
  return r;
}

/** Runs kubectl and fails the test unless it exits non-zero (not by timeout). */
export async function expectKubectlFails(kubectl: Kubectl, args: string[], opts: KubectlOptions = {}): Promise<KubectlResult> {
  const r = await kubectl(args, opts);
  expect(r.timedOut, `kubectl ${args.join(' ')} timed out`).to.equal(false);
  expect(r.code, `kubectl ${args.join(' ')} succeeded:\n${r.stdout}`).to.be.a('number').and.not.equal(0);
  return r;
}

export interface KubectlServer {
  /** The running server (set by the before hook). */
  readonly server: ServerProcess;
  /** The temp dir: the server's data dir is `data` in it, kubectl's cache `kube-cache`. */
  readonly dir: string;
  /** kubectl with the server's admin kubeconfig and the private cache. */
  readonly kubectl: Kubectl;
  /** Runs kubectl and fails the test unless it exits 0 (showing its and the server's stderr). */
  ok(args: string[], opts?: KubectlOptions): Promise<KubectlResult>;
  /** Runs kubectl and fails the test unless it exits non-zero (not by timeout). */
  fails(args: string[], opts?: KubectlOptions): Promise<KubectlResult>;
  /**
   * Writes `obj` as a YAML manifest in the temp dir and returns its path. YAML 1.1 quoting, as
   * kubectl reads YAML 1.1: unquoted `y` or `on` would reach the server as booleans.
   */
  manifest(file: string, obj: unknown): string;
  /**
   * kubectl (with the same kubeconfig and cache) as a running child whose output the test reads,
   * e.g. `get -w`; stopped after each test, and before the server stops.
   */
  spawnKubectl(args: string[]): LineProcess;
}

/**
 * Registers, in the calling describe, a before hook that makes a temp dir `orch-e2e-<name>-*`
 * and starts the server in it (`--data-dir=<dir>/data --secure-port=0 ...extraFlags`), an
 * afterEach hook that stops the children of spawnKubectl, and an after hook that stops those
 * left, then the server, removes the dir and fails if the server had to be killed.
 * Hooks the caller registers later run after these (mocha runs a suite's hooks in order).
 */
export function useKubectlServer(name: string, extraFlags: string[] = []): KubectlServer {
  let dir: string | undefined;
  let cacheDir: string | undefined;
  let server: ServerProcess | undefined;
  let kubectl: Kubectl | undefined;
  let children: LineProcess[] = [];

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useKubectlServer(${name}): no ${what} before the before hook has run`);
    return value;
  };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), `orch-e2e-${name}-`));
    cacheDir = path.join(dir, 'kube-cache');
    server = await startServerProcess([`--data-dir=${path.join(dir, 'data')}`, '--secure-port=0', ...extraFlags]);
    kubectl = kubectlFor(server.kubeconfigPath, cacheDir);
  });

  const stopChildren = async () => {
    await Promise.all(children.map((c) => c.stop()));
    children = [];
  };
  afterEach(stopChildren);

  after(async () => {
    await stopChildren();
    const exit = await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (exit?.forced) throw new Error(`server did not exit on SIGTERM:\n${server!.stderrTail()}`);
  });

  return {
    get server() { return started(server, 'server'); },
    get dir() { return started(dir, 'dir'); },
    get kubectl() { return started(kubectl, 'kubectl'); },
    ok: (args, opts) => expectKubectlOk(started(kubectl, 'kubectl'), args, opts, server),
    fails: (args, opts) => expectKubectlFails(started(kubectl, 'kubectl'), args, opts),
    manifest(file, obj) {
      const p = path.join(started(dir, 'dir'), file);
      writeFileSync(p, stringifyYaml(obj, { version: '1.1' }));
      return p;
    },
    spawnKubectl(args) {
      const c = spawnLines('kubectl', ['--kubeconfig', started(server, 'server').kubeconfigPath, `--cache-dir=${cacheDir}`, ...args]);
      children.push(c);
      return c;
    },
  };
}

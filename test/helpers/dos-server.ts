/**
 * The server for the DoS tests: a child process on its own embedded etcd in a temp dir, so that
 * its memory (/proc/<pid>/status) and CPU (/proc/<pid>/stat) are its own and can be read while it
 * is attacked, with the admin credentials from the kubeconfig it wrote. It runs with --inspect
 * on a loopback port, through which a full GC can be asked for (what it holds, not what V8 has
 * yet to collect).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ListenerLimits } from '../../lib/http/limits';
import { collectGarbage, remoteMemoryUsage } from '../bench/inspector-gc';
import { expect } from 'chai';
import { H2Client, readKubeconfig, type Credentials } from './process-client';
import { startServerProcess, type ServerProcess } from './server-process';

export interface DosServer {
  process: ServerProcess;
  pid: number;
  creds: Credentials;
  /** The same credentials as strings (RawH2.connect). */
  tls: { ca: string; cert: string; key: string };
  /** host:port, the :authority of requests. */
  authority: string;
  port: number;
  /** Lines the server wrote to stderr so far that match `re` (its log is one JSON object per line). */
  logLines(re: RegExp): string[];
  /** Bytes the server holds after a full garbage collection: V8's heap in use plus memory outside it (Buffers). */
  heldBytes(): Promise<number>;
  /** Stops the server (failing if it had to be killed) and removes its data dir. */
  stop(): Promise<void>;
}

const LISTENER_MAIN = path.resolve(__dirname, 'listener-limits-main.js');

export interface DosServerOptions {
  /** Listener limits, which are not flags: the server is then started by listener-limits-main.ts. */
  listener?: Partial<ListenerLimits>;
}

/** Starts `main.js --data-dir=<tmp> --secure-port=0 ...flags`. */
export async function startDosServer(name: string, flags: string[], opts: DosServerOptions = {}): Promise<DosServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `orch-dos-${name}-`));
  const args = [`--data-dir=${dir}`, '--secure-port=0', ...flags];
  const nodeArgs = ['--inspect=127.0.0.1:0'];
  let proc: ServerProcess;
  try {
    proc = opts.listener
      ? await startServerProcess([JSON.stringify(opts.listener), ...args], { script: LISTENER_MAIN, nodeArgs })
      : await startServerProcess(args, { nodeArgs });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  // The tail startServerProcess keeps is 30 lines; the tests count warnings over a whole run.
  const lines: string[] = [];
  let partial = '';
  proc.process.stderr!.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  const creds = readKubeconfig(proc.kubeconfigPath);
  const url = new URL(creds.url);
  return {
    process: proc,
    pid: proc.process.pid!,
    creds,
    tls: { ca: creds.ca.toString(), cert: creds.cert.toString(), key: creds.key.toString() },
    authority: url.host,
    port: Number(url.port),
    logLines: (re) => lines.filter((l) => re.test(l)),
    async heldBytes() {
      if (!proc.inspectorUrl) throw new Error('heldBytes: the server printed no inspector URL');
      // Collected again until nothing more goes: Buffers of closed connections are freed over several
      // collections (after 20 connections cut by the server, ~16 MiB a collection, 200 ms apart).
      let held = Infinity;
      for (let i = 0; i < 10; i++) {
        await collectGarbage(proc.inspectorUrl);
        const m = await remoteMemoryUsage(proc.inspectorUrl);
        const now = m.heapUsed + m.external;
        if (held - now < 512 * 1024) return Math.min(held, now);
        held = now;
        await new Promise((r) => setTimeout(r, 200));
      }
      return held;
    },
    async stop() {
      try {
        const { forced } = await proc.stop();
        if (forced) throw new Error(`the server did not stop on SIGTERM:\n${proc.stderrTail()}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Resets VmHWM to the RSS now (Linux's clear_refs "5"), so the next peak is this attack's; false if not allowed. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** CPU ms (user + system) of `pid` itself so far: not its children (the embedded etcd). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** A large response, served from the watch cache: the list of the ConfigMaps createLargeList makes. */
export const LARGE_LIST_PATH = '/api/v1/namespaces/default/configmaps?resourceVersion=0';

/** Creates 100 ConfigMaps of 8 KB each; resolves with the size of LARGE_LIST_PATH's answer (~830 KB). */
export async function createLargeList(server: DosServer): Promise<number> {
  const client = new H2Client(server.creds);
  try {
    const created = await Promise.all(Array.from({ length: 100 }, (_, i) => client.request('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `dos-${i}` }, data: { blob: 'x'.repeat(8_000) },
    })));
    expect(created.map((r) => r.status).filter((s) => s !== 201)).to.deep.equal([]);
    return (await client.request('GET', LARGE_LIST_PATH)).text.length;
  } finally {
    client.close();
  }
}

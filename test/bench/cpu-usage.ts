/**
 * CPU time of the load generator, the server process and etcd, so a result can say which side was
 * saturated. The server's and etcd's come from /proc (Linux); elsewhere they are unknown.
 */
import { readFileSync } from 'node:fs';
import { childPids } from '../helpers/server-process';

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const CLOCK_TICKS_PER_SEC = 100;

/**
 * CPU seconds (user + system) used so far by `pid` and its live child processes (the workers of
 * a server with --workers), or undefined when /proc cannot tell.
 */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const own = statFields(pid);
  if (!own) return undefined;
  let ticks = Number(own[11]) + Number(own[12]);
  for (const child of childPids(pid)) {
    const f = statFields(child);
    if (f) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / CLOCK_TICKS_PER_SEC;
}

/** The fields of /proc/<pid>/stat after the parenthesised command name (state is [0], utime [11], stime [12], cutime [13], cstime [14]). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) of this process's children that have exited and been waited for
 * (cutime + cstime of /proc/self/stat): the delta around one run of a load generator such as
 * h2load is that run's CPU, as long as no other child exits meanwhile. undefined off Linux.
 */
export function exitedChildrenCpuSeconds(): number | undefined {
  const f = statFields(process.pid);
  return f ? (Number(f[13]) + Number(f[14])) / CLOCK_TICKS_PER_SEC : undefined;
}

/** CPU seconds used so far by this process. */
export function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** CPU use as % of one core of each side over a measurement; undefined where /proc cannot tell. */
export interface CpuShares { generator: number; server?: number; etcd?: number }

/** Starts a measurement; the returned function gives each side's CPU use as % of one core since. */
export function cpuMeter(serverPid: number | undefined, etcdPid?: number): () => CpuShares {
  const t0 = Date.now();
  const own0 = ownCpuSeconds();
  const srv0 = processCpuSeconds(serverPid);
  const etcd0 = processCpuSeconds(etcdPid);
  return () => {
    const wall = (Date.now() - t0) / 1000;
    const share = (before: number | undefined, after: number | undefined) =>
      (before === undefined || after === undefined ? undefined : (100 * (after - before)) / wall);
    return {
      generator: (100 * (ownCpuSeconds() - own0)) / wall,
      server: share(srv0, processCpuSeconds(serverPid)),
      etcd: share(etcd0, processCpuSeconds(etcdPid)),
    };
  };
}

/**
 * CPU shares summed over several intervals (the rounds of one side): start() and stop() around
 * each; shares() is CPU seconds over wall seconds of all intervals together.
 */
export class CpuAccumulator {
  private wall = 0;
  private readonly used = { generator: 0, server: 0, etcd: 0 };
  private known = { server: true, etcd: true };
  private open?: { t: number; own: number; server?: number; etcd?: number };

  constructor(private readonly serverPid: number | undefined, private readonly etcdPid: number | undefined) {}

  start(): void {
    this.open = { t: Date.now(), own: ownCpuSeconds(), server: processCpuSeconds(this.serverPid), etcd: processCpuSeconds(this.etcdPid) };
  }

  stop(): void {
    const o = this.open;
    if (!o) return;
    this.open = undefined;
    this.wall += (Date.now() - o.t) / 1000;
    this.used.generator += ownCpuSeconds() - o.own;
    const server = processCpuSeconds(this.serverPid);
    const etcd = processCpuSeconds(this.etcdPid);
    if (o.server === undefined || server === undefined) this.known.server = false;
    else this.used.server += server - o.server;
    if (o.etcd === undefined || etcd === undefined) this.known.etcd = false;
    else this.used.etcd += etcd - o.etcd;
  }

  shares(): CpuShares {
    const pct = (s: number) => (this.wall > 0 ? (100 * s) / this.wall : 0);
    return {
      generator: pct(this.used.generator),
      server: this.known.server ? pct(this.used.server) : undefined,
      etcd: this.known.etcd ? pct(this.used.etcd) : undefined,
    };
  }
}

/**
 * How `make test` splits the suites of .mocharc.js: most run in parallel, a few files at a time in
 * separate processes (mocha --parallel); the suites below run afterwards, one file at a time,
 * with the machine to themselves. A suite belongs here when it injects faults into processes it
 * starts, measures the server under attack or load (RSS, /healthz latency), or starts so many
 * processes or connections that it would slow its neighbours into their hang guards.
 * A suite that merely waits on timers does not: lower bounds on time hold on a busy machine.
 */
import { globToRegExp } from './spec-files';

export interface SerialSuite {
  /** A glob over the compiled files, relative to the repository, e.g. `dist/test/integration/etcd-faults.test.js`. */
  files: string;
  /** Why it cannot share the machine. */
  why: string;
}

export const SERIAL_SUITES: readonly SerialSuite[] = [
  { files: 'dist/test/integration/etcd-faults.test.js', why: 'kills, stops and restarts members of a 3-member etcd cluster (fsync on) under load' },
  { files: 'dist/test/integration/etcd-failover.test.js', why: 'SIGSTOPs and kills etcd members; elections race the client keepalive' },
  { files: 'dist/test/integration/server-faults.test.js', why: 'SIGKILLs and SIGTERMs server processes under four writers; a shutdown delay choreography' },
  { files: 'dist/test/integration/workers.test.js', why: 'servers of three worker processes each; kills workers' },
  { files: 'dist/test/integration/*-dos*.test.js', why: 'attacks: /healthz must answer within 1 s throughout, RSS bounds (issue 37)' },
  { files: 'dist/test/integration/http2-limits.test.js', why: '1,000 watches on one session, slow-header and idle timers' },
  { files: 'dist/test/integration/overload.test.js', why: 'fills the in-flight seats; the refusals depend on requests held at the same time' },
  { files: 'dist/test/integration/slow-watcher.test.js', why: "thousands of writes against a watcher that never reads; bounds the server's RSS" },
  { files: 'dist/test/integration/cacher-scale.test.js', why: '1,000 watchers and 6,400 concurrent gets' },
  { files: 'dist/test/integration/leader-election.test.js', why: 'replicas as processes, lease expiry, a leader cut off from etcd' },
  { files: 'dist/test/integration/flow-control.test.js', why: "measures another user's p99 latency while one user floods at 10x capacity (issue 41's 2x bound): neighbours' load is noise in it" },
];

export interface Groups {
  parallel: string[];
  serial: string[];
}

/** Splits `files` (repository-relative paths) into the two groups, each in the order given. */
export function splitSuites(files: readonly string[], serial: readonly SerialSuite[] = SERIAL_SUITES): Groups {
  const patterns = serial.map((s) => globToRegExp(s.files));
  const isSerial = (f: string) => patterns.some((re) => re.test(f));
  return { parallel: files.filter((f) => !isSerial(f)), serial: files.filter(isSerial) };
}

/**
 * The serial entries that match none of `files` (all the suites): a renamed suite would
 * otherwise drift into the parallel group unnoticed.
 */
export function unmatchedSerialSuites(files: readonly string[], serial: readonly SerialSuite[] = SERIAL_SUITES): string[] {
  return serial.filter((s) => {
    const re = globToRegExp(s.files);
    return !files.some((f) => re.test(f));
  }).map((s) => s.files);
}

/**
 * The contract between the runner (run.ts) and one benchmark file: a benchmark gets a fresh
 * etcd and server, does bounded work against them, and returns rows for the shared table.
 */
import { BenchEnvironment } from './environment';

/** One line of the result table and one entry of the JSON file. */
export interface ResultRow {
  benchmark: string;
  metric: string;
  /** Unit of `value` and `baseline`, e.g. 'ms', 'ops/s', 'events'. */
  unit: string;
  value: number;
  /** What `value` is compared with (raw etcd, the expected count, the idle state), if anything. */
  baseline?: number;
  /**
   * value vs baseline, oriented so that > 1 is better for the server: throughput value/baseline,
   * latency baseline/value (raw etcd time / server time), counts value/baseline.
   */
  ratio?: number;
  /** The goal this row is judged against (issue 7), e.g. '≥ 0.7x', '< 100 ms'; reported, never asserted. */
  target?: string;
  /** Whether `value`/`ratio` meets `target`; set exactly when `target` is. */
  met?: boolean;
  note?: string;
}

/** A target for a row: its text and whether it is met (NaN compares as not met). */
export function target(text: string, met: boolean): Pick<ResultRow, 'target' | 'met'> {
  return { target: text, met };
}

export interface BenchContext {
  /** --quick: smaller data and shorter phases, the whole run under ~2 minutes. */
  quick: boolean;
  env: BenchEnvironment;
  /**
   * --focus: benchmarks that support it measure only the cells whose metric contains this text
   * (other cells run only as far as the focused one needs), e.g. for a CPU profile of one cell.
   */
  focus?: string;
  /** --base-build: the dist/ directory of another build, for the ab benchmark. */
  baseBuild?: string;
  /** --base-arg: flags for the ab benchmark's base side only. */
  baseArgs: string[];
  /** --server-arg: flags every server gets (for benchmarks that start servers of their own). */
  serverArgs: string[];
  /** --server-node-arg: Node/V8 flags for servers a benchmark starts itself. */
  serverNodeArgs: string[];
  /** --base-node-arg: Node/V8 flags for the ab benchmark's base side only. */
  baseNodeArgs: string[];
  /** --nodes: hollow nodes of the benchmarks that start a cluster (each has its own default). */
  nodes?: number;
  /** Progress lines on stderr, so stdout carries only the table. */
  log(msg: string): void;
}

export interface Benchmark {
  /** Stable id, used by --only and as the `benchmark` column. */
  name: string;
  /** One line for --help. */
  description: string;
  /** Node flags this benchmark needs in the server process (added to the runner's own). */
  serverNodeArgs?: string[];
  /** Must end every loop and stream it starts; the runner stops the environment afterwards. */
  run(ctx: BenchContext): Promise<ResultRow[]>;
}

/** `label` contains `focus`, and not as the start of a longer number ('create c=1' is not 'create c=16'). */
export function matchesFocus(label: string, focus: string): boolean {
  const at = label.indexOf(focus);
  return at >= 0 && !/[0-9]/.test(label.charAt(at + focus.length));
}

/** The run's output: one Markdown table for stdout and the same rows as a JSON file. */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { ResultRow } from './benchmark';

export interface RunReport {
  startedAt: string;
  quick: boolean;
  /** --focus, when given: only some cells were measured. */
  focus?: string;
  /** Benchmarks that threw, with the message; their rows are missing. */
  failures: Array<{ benchmark: string; error: string }>;
  host: { node: string; cpus: number; cpuModel: string; totalMemGiB: number };
  rows: ResultRow[];
}

export function hostInfo(): RunReport['host'] {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    totalMemGiB: Math.round(os.totalmem() / 2 ** 30),
  };
}

export function formatTable(rows: ResultRow[]): string {
  const header = ['benchmark', 'metric', 'value', 'baseline', 'ratio', 'target', 'met', 'note'];
  const lines = rows.map((r) => [
    r.benchmark,
    r.metric,
    withUnit(r.value, r.unit),
    r.baseline === undefined ? '' : withUnit(r.baseline, r.unit),
    r.ratio === undefined ? '' : formatNumber(r.ratio),
    r.target ?? '',
    r.met === undefined ? '' : r.met ? 'met' : 'not met',
    r.note ?? '',
  ]);
  const md = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [md(header), md(header.map(() => '---')), ...lines.map(md)].join('\n');
}

export async function writeReport(file: string, report: RunReport): Promise<void> {
  // NaN and Infinity are not JSON: they become null.
  await writeFile(file, `${JSON.stringify(report, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`);
}

function withUnit(v: number, unit: string): string {
  return unit ? `${formatNumber(v)} ${unit}` : formatNumber(v);
}

function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  const abs = Math.abs(v);
  return v.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3);
}

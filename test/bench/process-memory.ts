/** Resident memory of another process, from /proc/<pid>/status (Linux). */
import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  /** VmRSS: resident set size now, bytes. */
  rss: number;
  /** VmHWM: the peak resident set size so far, bytes. */
  peakRss: number;
}

/** Throws when /proc cannot tell (not Linux, or the process is gone). */
export function processMemory(pid: number | undefined): ProcessMemory {
  if (pid === undefined) throw new Error('no server pid');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(m[1]) * 1024;
  };
  return { rss: kib('VmRSS'), peakRss: kib('VmHWM') };
}

/**
 * The lowest RSS over `samples` readings `intervalMs` apart. The server cannot be made to collect
 * garbage from outside, so a quiet period and the minimum stand in for "after a GC".
 */
export async function settledRss(pid: number | undefined, samples: number, intervalMs: number): Promise<{ min: number; first: number; peak: number }> {
  const first = processMemory(pid);
  let min = first.rss;
  let peak = first.peakRss;
  for (let i = 1; i < samples; i++) {
    await new Promise((r) => setTimeout(r, intervalMs));
    const m = processMemory(pid);
    min = Math.min(min, m.rss);
    peak = m.peakRss;
  }
  return { min, first: first.rss, peak };
}

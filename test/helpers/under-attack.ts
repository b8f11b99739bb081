/**
 * Runs one attack on a DoS server (dos-server.ts) and measures what it cost the server and the
 * other clients: a /healthz prober on its own connection (healthz-prober.ts) from before the
 * attack to a moment after it, the server's resident memory before, at its peak during and after
 * the attack, what it holds after a full GC before and after (what was left to it), and its CPU
 * time. Prints one line per attack with the figures.
 */
import { expect } from 'chai';
import { processMemory } from '../bench/process-memory';
import { cpuMsOf, resetPeakRss, type DosServer } from './dos-server';
import { startProber, type ProberSummary } from './healthz-prober';

/** What the attack did and what the server answered, in words for the line. */
export interface AttackOutcome {
  sent: string;
  answer: string;
}

export interface AttackFigures {
  prober: ProberSummary;
  /** The server's RSS, bytes: before the attack, its peak from the attack's start to its end, and a moment after. */
  rss: { before: number; peak: number; after: number };
  /**
   * What the server holds after a full GC once the attack is over (the attack's connections still
   * open, if it leaves them open), over what it held before: what the attack left it holding.
   */
  heldGrowth: number;
  /** The server's CPU from the attack's start to a moment after its end. */
  cpuMs: number;
  /** How long the attack took, ms. */
  wallMs: number;
}

const MiB = 1 << 20;
/** The longest a /healthz on another connection may take while an attack runs. */
export const PROBE_BOUND_MS = 1_000;
/** How often RSS is read where VmHWM cannot be reset. */
const SAMPLE_MS = 20;
/** Probing goes on this long after the attack: a server that is slow once the flood is read shows it. */
const AFTER_MS = 300;

export async function underAttack<T extends AttackOutcome>(server: DosServer, name: string, attack: () => Promise<T>,
  protocol: 'h2' | 'http/1.1' = 'h2'): Promise<T & AttackFigures> {
  // Collections are asked for outside the prober's time: a forced full GC is a pause of its own.
  const heldBefore = await server.heldBytes();
  const prober = await startProber({ ...server.creds, protocol });
  const before = processMemory(server.pid).rss;
  const hwmReset = resetPeakRss(server.pid);
  let sampled = before;
  const sampler = setInterval(() => { sampled = Math.max(sampled, processMemory(server.pid).rss); }, SAMPLE_MS);
  const cpu0 = cpuMsOf(server.pid);
  const started = performance.now();
  let outcome: T;
  try {
    outcome = await attack();
  } catch (err) {
    await prober.stop().catch(() => undefined);
    throw err;
  } finally {
    clearInterval(sampler);
  }
  const wallMs = performance.now() - started;
  const atEnd = processMemory(server.pid);
  const peak = Math.max(sampled, atEnd.rss, hwmReset ? atEnd.peakRss : 0);
  await new Promise((r) => setTimeout(r, AFTER_MS));
  const proberSummary = await prober.stop();
  const rss = { before, peak, after: processMemory(server.pid).rss };
  const cpuMs = cpuMsOf(server.pid) - cpu0;
  const figures: AttackFigures = { prober: proberSummary, rss, heldGrowth: (await server.heldBytes()) - heldBefore, cpuMs, wallMs };
  const p = figures.prober;
  const mib = (b: number) => (b / MiB).toFixed(0);
  console.log(`      [${name}] ${outcome.sent} in ${wallMs.toFixed(0)} ms; server: ${outcome.answer}; `
    + `/healthz on another connection: ${p.probes} probes, p50 ${p.p50Ms} / p99 ${p.p99Ms} / max ${p.maxMs} ms, ${p.failureCount} failed; `
    + `server RSS ${mib(before)} -> peak ${mib(peak)} -> ${mib(rss.after)} MiB, held after GC ${(figures.heldGrowth / MiB).toFixed(1)} MiB more; `
    + `server CPU ${cpuMs.toFixed(0)} ms`);
  return { ...outcome, ...figures };
}

/**
 * The bounds every attack is held to: /healthz on another connection answered 200 every time,
 * within PROBE_BOUND_MS; the server's RSS grown by less than `rssMiB` at its peak (what it
 * held and what V8 had yet to collect), and what it holds after a full GC by less than `heldMiB`.
 */
export function expectBounded(name: string, f: AttackFigures, bounds: { rssMiB: number; heldMiB: number }): void {
  expect(f.prober.failures, `${name}: /healthz probes that failed (${f.prober.failureCount})`).to.deep.equal([]);
  expect(f.prober.maxMs, `${name}: the slowest /healthz, ms`).to.be.below(PROBE_BOUND_MS);
  expect((f.rss.peak - f.rss.before) / MiB, `${name}: the server's RSS growth at its peak, MiB`).to.be.below(bounds.rssMiB);
  expect(f.heldGrowth / MiB, `${name}: what the server holds after a full GC, MiB more than before`).to.be.below(bounds.heldMiB);
}

/**
 * Runs `round` again and again, each after the last has ended, for `ms` (at least once): an
 * attacker whose connection the server ends comes back on a new one, so the server is under
 * attack for the whole time and the prober's figures cover it.
 */
export async function repeatFor<T>(ms: number, round: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  const end = performance.now() + ms;
  do out.push(await round()); while (performance.now() < end);
  return out;
}

/** "GOAWAY ENHANCE_YOUR_CALM x12, cut x1": how many rounds ended each way. */
export function tally(outcomes: string[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].map(([o, n]) => `${o} x${n}`).join(', ');
}

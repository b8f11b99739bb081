/**
 * How the fuzz suite runs its properties: one seed per process (FUZZ_SEED, else random, printed
 * so a failure can be replayed), a number of runs per property (FUZZ_RUNS for HTTP properties,
 * 10x that for server-less ones; modest defaults for `make test`), and one JSON line per property
 * appended to test/reliability/results.jsonl: {scenario:'fuzz', property, runs, failures, seed}.
 */
import fc from 'fast-check';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/** The seed every property of this process starts from. */
export const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
const RUNS = process.env.FUZZ_RUNS ? Math.max(1, Number(process.env.FUZZ_RUNS)) : undefined;

/** Runs for a property through the server (`dflt` in `make test`; FUZZ_RUNS in `make test-fuzz`). */
export function httpRuns(dflt: number): number {
  return RUNS ?? dflt;
}

/** Runs for a server-less property: ten times the HTTP figure under FUZZ_RUNS. */
export function unitRuns(dflt: number): number {
  return RUNS ? RUNS * 10 : dflt;
}

const RESULTS = path.join(__dirname, '..', '..', '..', 'test', 'reliability', 'results.jsonl');
let announced = false;

/** Inputs tried per property in this process (for the summary line at the end). */
export const tried: Record<string, number> = {};

/**
 * Checks `prop` with `runs` inputs from SEED; records the inputs tried and fails with fast-check's
 * report (counterexample, seed and path to replay it) when an input breaks the property.
 * `notes`, read once the inputs have run, adds counts of the property's own to the recorded line.
 */
export async function checkProperty<T>(name: string, prop: fc.IProperty<T> | fc.IAsyncProperty<T>, runs: number,
  notes?: () => Record<string, number>): Promise<void> {
  if (!announced) {
    announced = true;
    console.log(`      fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED})`);
  }
  const details = await fc.check(prop as fc.IAsyncProperty<T>, { numRuns: runs, seed: SEED, endOnFailure: false, includeErrorInReport: true });
  const inputs = details.numRuns + details.numSkips;
  tried[name] = inputs;
  console.log(`      ${name}: ${inputs} inputs, ${details.failed ? 'FAILED' : 'no failure'}`);
  try {
    mkdirSync(path.dirname(RESULTS), { recursive: true });
    appendFileSync(RESULTS, `${JSON.stringify({ scenario: 'fuzz', property: name, runs: inputs, failures: details.failed ? 1 : 0, seed: SEED, at: new Date().toISOString(), ...(notes ? { notes: notes() } : {}) })}\n`);
  } catch {
    // Results are a report, not the test: a read-only tree does not fail the property.
  }
  if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? `property ${name} failed`);
}

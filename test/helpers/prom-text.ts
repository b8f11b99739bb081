/**
 * A small reader of the Prometheus text exposition (/metrics) for tests: HELP and TYPE lines and
 * samples with their labels, and sums of samples matching some labels.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  help: Map<string, string>;
  types: Map<string, string>;
  samples: Sample[];
  /** The sum of the samples named `name` whose labels include every pair of `labels` (0 when none). */
  value(name: string, labels?: Record<string, string>): number;
  /** Whether any sample is named `name` (with these labels). */
  has(name: string, labels?: Record<string, string>): boolean;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    labels[m[1]] = m[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    if (re.lastIndex >= text.length) break;
  }
  return labels;
}

/** Parses the text; throws on a line that is neither a comment nor a sample. */
export function parseExposition(text: string): Exposition {
  const help = new Map<string, string>();
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (comment) {
      (comment[1] === 'HELP' ? help : types).set(comment[2], comment[3]);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    samples.push({ name: m[1], labels: m[2] ? parseLabels(m[2]) : {}, value: Number(m[3]) });
  }
  const matching = (name: string, labels: Record<string, string>) => samples.filter((s) => s.name === name
    && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    help, types, samples,
    value: (name, labels = {}) => matching(name, labels).reduce((sum, s) => sum + s.value, 0),
    has: (name, labels = {}) => matching(name, labels).length > 0,
  };
}

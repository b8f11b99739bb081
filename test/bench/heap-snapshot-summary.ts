/**
 * What a V8 heap snapshot holds, by kind of thing:
 *   node dist/test/bench/heap-snapshot-summary.js DIR_OR_FILE [--top=25]
 * A directory means its newest .heapsnapshot. The server writes one when it runs with
 * `--server-node-arg=--heapsnapshot-signal=SIGUSR2 --server-node-arg=--diagnostic-dir=DIR` and
 * is sent SIGUSR2 (its pid is in the benchmark's log); V8 collects garbage first, so the snapshot
 * is the live heap. Prints a Markdown table of self sizes: objects by constructor, and strings,
 * compiled code, arrays and Buffer contents (`system / JSArrayBufferData`) each as one row.
 * A snapshot is JSON of several times the heap's size: give node --max-old-space-size to match.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const MIB = 2 ** 20;
/** Node types whose names say nothing useful one by one: each is one row. */
const GROUPED: Record<string, string> = {
  string: '(strings)', 'concatenated string': '(strings)', 'sliced string': '(strings)',
  code: '(compiled code)', closure: '(closures)', array: '(arrays)', number: '(heap numbers)',
  hidden: '(V8 internals)', 'object shape': '(object shapes)',
};

function newestSnapshot(target: string): string {
  if (!statSync(target).isDirectory()) return target;
  const files = readdirSync(target).filter((f) => f.endsWith('.heapsnapshot')).map((f) => path.join(target, f));
  if (!files.length) throw new Error(`no .heapsnapshot in ${target}`);
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** Self size and count per row, and the total. */
export function summarize(snap: HeapSnapshot): { total: number; rows: Array<{ what: string; bytes: number; count: number }> } {
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const rows = new Map<string, { bytes: number; count: number }>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]];
    const what = GROUPED[type] ?? `${snap.strings[snap.nodes[i + nameAt]].slice(0, 60)}${type === 'object' ? '' : ` (${type})`}`;
    const bytes = snap.nodes[i + sizeAt];
    const row = rows.get(what) ?? { bytes: 0, count: 0 };
    row.bytes += bytes;
    row.count++;
    rows.set(what, row);
    total += bytes;
  }
  return { total, rows: [...rows].map(([what, r]) => ({ what, ...r })).sort((a, b) => b.bytes - a.bytes) };
}

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  if (positionals.length !== 1) throw new Error('usage: heap-snapshot-summary.js DIR_OR_FILE [--top=25]');
  const file = newestSnapshot(positionals[0]);
  const { total, rows } = summarize(JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot);
  console.log(`${file}: ${(total / MIB).toFixed(1)} MiB in the heap\n`);
  console.log('| MiB | share | count | what |\n| ---: | ---: | ---: | --- |');
  for (const r of rows.slice(0, Number(values.top))) {
    console.log(`| ${(r.bytes / MIB).toFixed(2)} | ${((100 * r.bytes) / total).toFixed(1)}% | ${r.count} | ${r.what.replace(/\|/g, '\\|')} |`);
  }
}

if (require.main === module) main();

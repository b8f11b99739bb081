/**
 * The top functions of a V8 CPU profile (as written by --server-cpu-prof), with TypeScript
 * file:line where dist/ has a source map:
 *   node dist/test/bench/profile-summary.js DIR_OR_FILE [--top=10]
 * A directory means its newest .cpuprofile. Prints two Markdown tables: self time (with the
 * nearest project frame below it on the stack, which says whose call a Node or library function
 * is), and total time (self + callees) of the project's own functions (under lib/).
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Time V8 spent waiting; left out of "busy" time and of the tables. */
const IDLE = '(idle)';
/** Compiled project code: `dist/lib/...`. */
const isProject = (frame: CallFrame) => /[\\/]dist[\\/]lib[\\/]/.test(frame.url);
const keyOf = (f: CallFrame) => `${f.functionName}|${f.url}|${f.lineNumber}|${f.columnNumber}`;
const name = (f: CallFrame) => f.functionName || '(anonymous)';

function newestProfile(target: string): string {
  if (!statSync(target).isDirectory()) return target;
  const files = readdirSync(target).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(target, f));
  if (!files.length) throw new Error(`no .cpuprofile in ${target}`);
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

const maps = new Map<string, SourceMap | undefined>();

/** `file:line` of a call frame, in the .ts source when a source map says where. */
function location(frame: CallFrame): string {
  if (!frame.url) return '';
  const file = frame.url.startsWith('file://') ? fileURLToPath(frame.url) : frame.url;
  if (!maps.has(file)) {
    const mapFile = `${file}.map`;
    maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined);
  }
  const entry = maps.get(file)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (entry && 'originalSource' in entry && entry.originalSource) {
    const source = path.resolve(path.dirname(file), entry.originalSource);
    return `${path.relative(process.cwd(), source)}:${entry.originalLine + 1}`;
  }
  const shown = path.isAbsolute(file) ? path.relative(process.cwd(), file) : file;
  return `${shown}:${frame.lineNumber + 1}`;
}

/** Adds `us` to `key`'s entry in `map`. */
function add<T>(map: Map<string, { item: T; us: number }>, key: string, item: T, us: number): void {
  const e = map.get(key);
  if (e) e.us += us;
  else map.set(key, { item, us });
}

function main(): void {
  const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '10' } }, allowPositionals: true });
  if (positionals.length !== 1) throw new Error('usage: node dist/test/bench/profile-summary.js DIR_OR_FILE [--top=10]');
  const top = Number(values.top);
  const file = newestProfile(positionals[0]);
  const profile: CpuProfile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<string, { item: CallFrame; us: number }>();
  /** Per self-time function, the nearest project frame on the stack below it. */
  const via = new Map<string, Map<string, { item: CallFrame; us: number }>>();
  const total = new Map<string, { item: CallFrame; us: number }>();
  let sampled = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)!.callFrame;
    sampled += us;
    if (frame.functionName === IDLE) { idle += us; return; }
    const key = keyOf(frame);
    add(self, key, frame, us);
    // Walk down the stack: the first project frame is the "via"; every project function on it gets total time once.
    const seen = new Set<string>();
    let viaFrame: CallFrame | undefined;
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const f = byId.get(n)!.callFrame;
      if (!isProject(f)) continue;
      viaFrame ??= f;
      const k = keyOf(f);
      if (!seen.has(k)) { seen.add(k); add(total, k, f, us); }
    }
    if (viaFrame && !isProject(frame)) {
      if (!via.has(key)) via.set(key, new Map());
      add(via.get(key)!, keyOf(viaFrame), viaFrame, us);
    }
  });
  const busy = sampled - idle;
  const pct = (us: number) => ((100 * us) / busy).toFixed(1);
  const topOf = (m: Map<string, { item: CallFrame; us: number }>) => [...m.entries()].sort((a, b) => b[1].us - a[1].us).slice(0, top);
  const viaText = (key: string, us: number) => {
    const best = via.has(key) ? topOf(via.get(key)!)[0] : undefined;
    return best ? `${name(best[1].item)} ${location(best[1].item)} (${((100 * best[1].us) / us).toFixed(0)}%)` : '';
  };
  const lines = [
    `${path.basename(file)}: ${(sampled / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (not idle)`,
    '',
    '| # | self ms | % of busy | function | location | via (nearest project frame, share) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...topOf(self).map(([k, e], i) => `| ${i + 1} | ${(e.us / 1000).toFixed(0)} | ${pct(e.us)} | ${name(e.item)} | ${location(e.item)} | ${viaText(k, e.us)} |`),
    '',
    '| # | total ms | % of busy | project function | location |',
    '| --- | --- | --- | --- | --- |',
    ...topOf(total).map(([, e], i) => `| ${i + 1} | ${(e.us / 1000).toFixed(0)} | ${pct(e.us)} | ${name(e.item)} | ${location(e.item)} |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();

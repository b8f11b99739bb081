/**
 * The floors of lib/ (lib/layers.json) held against the code's own imports: every lib/ file's
 * relative imports (import and export ... from, import type, require, import()) are read from
 * the source, each is checked against its module's mayImport, the floors themselves are checked
 * to run one way, and the file-level import graph is searched for circles. What still breaks the
 * rules is listed in the layer file's debts, and the test holds that list to the code exactly, so
 * it can only shrink by being paid.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '../../../..');
const LIB = path.join(ROOT, 'lib');

interface LayerFile {
  /** `ground`: importable from every floor above it without being named. */
  modules: Array<{ module: string; mayImport: string[]; ground?: boolean; why: string }>;
  debts: { imports: Record<string, number>; circles: string[][] };
}

const layers = JSON.parse(readFileSync(path.join(LIB, 'layers.json'), 'utf8')) as LayerFile;

/** Every .ts file under lib/, as a path relative to lib/. */
function libFiles(dir = LIB): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...libFiles(full));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path.relative(LIB, full));
  }
  return out.sort();
}

const IMPORT = /(?:\b(?:import|export)\s[^;'"]*?\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]*)\1/gm;

/** The lib/ files a file imports (relative imports only; packages and node: builtins are not layers). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(LIB, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out = new Set<string>();
  for (const m of text.matchAll(IMPORT)) {
    const target = path.normalize(path.join(path.dirname(file), m[2]));
    const resolved = [`${target}.ts`, target, path.join(target, 'index.ts')].find((c) => c.endsWith('.ts') && existsSync(path.join(LIB, c)));
    if (resolved === undefined) throw new Error(`${file}: cannot resolve ${m[2]}`);
    if (resolved.startsWith('..')) throw new Error(`${file}: imports ${m[2]}, outside lib/`);
    out.add(resolved);
  }
  return [...out];
}

/** A file's module: its top-level folder under lib/, or the file itself when it stands in lib/. */
const moduleOf = (file: string) => file.split(path.sep)[0];

/** The strongly connected components of more than one file (Tarjan's algorithm, iterative enough for this tree). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

describe('the floors of lib/ (lib/layers.json)', () => {
  const files = libFiles();
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const floor = new Map(layers.modules.map((m, i) => [m.module, i]));

  it('names every module of lib/ once, each allowed only modules on the floors below it', () => {
    const modules = [...new Set(files.map(moduleOf))].sort();
    expect([...floor.keys()].sort(), 'modules in lib/ and in the layer file').to.deep.equal(modules);
    expect(floor.size, 'a module named twice').to.equal(layers.modules.length);
    const upward: string[] = [];
    for (const m of layers.modules) {
      for (const dep of m.mayImport) {
        if (!floor.has(dep)) upward.push(`${m.module} may import ${dep}, which is not a module`);
        else if (floor.get(dep)! >= floor.get(m.module)!) upward.push(`${m.module} may import ${dep}, which is not below it`);
      }
    }
    expect(upward).to.deep.equal([]);
  });

  it('has no import the layer file does not allow, but for the debts it lists, exactly', () => {
    const allowed = new Map(layers.modules.map((m) => [m.module, new Set(m.mayImport)]));
    const ground = new Set(layers.modules.filter((m) => m.ground).map((m) => m.module));
    const seen: Record<string, number> = {};
    const where: Record<string, string[]> = {};
    for (const [file, imports] of graph) {
      const from = moduleOf(file);
      for (const target of imports) {
        const to = moduleOf(target);
        if (to === from || allowed.get(from)?.has(to)) continue;
        if (ground.has(to) && !ground.has(from) && floor.get(to)! < floor.get(from)!) continue;
        const edge = `${from} -> ${to}`;
        seen[edge] = (seen[edge] ?? 0) + 1;
        (where[edge] ??= []).push(`${file} imports ${target}`);
      }
    }
    const news = Object.keys(seen).filter((e) => !(e in layers.debts.imports)).flatMap((e) => where[e]);
    expect(news, 'imports that run up a floor or across to a module not allowed (lib/layers.json)').to.deep.equal([]);
    expect(seen, 'the debts in lib/layers.json no longer match the code: update them (they may only shrink)').to.deep.equal(layers.debts.imports);
  });

  it('keeps each kind to its folder: a kind (a folder of lib/registry/<group>/ with a definition.ts) imports no other kind', () => {
    const kindOf = (file: string): string | undefined => {
      const parts = file.split(path.sep);
      if (parts[0] !== 'registry' || parts.length < 4) return undefined;
      const dir = parts.slice(0, 3).join(path.sep);
      return existsSync(path.join(LIB, dir, 'definition.ts')) ? dir : undefined;
    };
    const kinds = new Set(files.map(kindOf).filter((k): k is string => k !== undefined));
    expect(kinds.size, 'kind folders found under lib/registry').to.be.greaterThan(20);
    const across: string[] = [];
    for (const [file, imports] of graph) {
      const from = kindOf(file);
      if (from === undefined) continue;
      for (const target of imports) {
        const to = kindOf(target);
        if (to !== undefined && to !== from) across.push(`${file} imports ${target} (move what both need up to the group folder)`);
      }
    }
    expect(across).to.deep.equal([]);
  });

  it('has no import circle, but for the debts it lists, exactly', () => {
    const found = circles(graph).map((c) => c.join(' '));
    const known = layers.debts.circles.map((c) => [...c].sort().join(' ')).sort();
    expect(found.filter((c) => !known.includes(c)), 'import circles').to.deep.equal([]);
    expect(found, 'the circles listed as debts in lib/layers.json no longer match the code').to.deep.equal(known);
  });

  it('reads imports as TypeScript writes them (a check of the reader itself)', () => {
    // The test's own view of two files known to import each kind of statement.
    expect(graph.get(path.join('http2', 'server-session.ts'))).to.include(path.join('http2', 'frames.ts'));
    expect(graph.get(path.join('server', 'server.ts'))!.some((f) => moduleOf(f) === 'registry')).to.equal(true);
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).to.deep.equal([['a', 'b', 'c']]);
  });
});

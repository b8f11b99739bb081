/**
 * cel-go's two-variable comprehensions (ext.TwoVarComprehensions, in Kubernetes' base environment
 * since 1.32): `all(i, v, p)`, `exists(i, v, p)`, `existsOne(i, v, p)` over a list (index, element)
 * or a map (key, value); `transformList(i, v, [filter,] expr)`, `transformMap(k, v, [filter,] expr)`
 * and `transformMapEntry(k, v, mapExpr)`. Errors follow cel-go: an error in all/exists is absorbed
 * when another element decides the result; existsOne and the transforms stop at the first error.
 * Implemented as engine macros (a type check in a context with the two variables, and evaluation).
 *
 * Cost (library/cost.go via cel-go): one iteration per element plus the cost of the predicate or
 * expression per iteration (the estimator's comprehension rule).
 */

import type { Environment } from '@marcbachmann/cel-js';
import { registerLibrary } from '../environment';
import { celEquals } from './compare';
import { celError } from './engine';

/** The engine's macro interfaces, as far as this file uses them. */
interface Node { op: string; args: unknown }
interface Ctx { forkWithVariable(name: string, type: TypeDecl): Ctx; reuse(parent: Ctx): Ctx; setIterValue(v: unknown, ev: Evaluator): Ctx }
interface TypeDecl { kind: string; keyType?: TypeDecl; valueType?: TypeDecl }
interface Checker { check(node: Node, ctx: Ctx): TypeDecl; getType(name: string): TypeDecl }
interface Evaluator { run(node: Node, ctx: Ctx): unknown }

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

interface Macro {
  kind: Kind;
  receiver: Node;
  vars: [string, string];
  filter?: Node;
  body: Node;
  ctx1?: Ctx;
  ctx2?: Ctx;
  async: false;
  typeCheck(checker: Checker, m: Macro, ctx: Ctx): TypeDecl;
  evaluate(ev: Evaluator, m: Macro, ctx: Ctx): unknown;
}

function identifier(node: Node, name: string): string {
  if (node.op === 'id' && typeof node.args === 'string') return node.args;
  throw celError(`${name}() variable name must be a simple identifier`);
}

function typeCheck(checker: Checker, m: Macro, ctx: Ctx): TypeDecl {
  const range = checker.check(m.receiver, ctx);
  let t1 = checker.getType('dyn');
  let t2 = checker.getType('dyn');
  if (range.kind === 'list') {
    t1 = checker.getType('int');
    t2 = range.valueType ?? t2;
  } else if (range.kind === 'map') {
    t1 = range.keyType ?? t1;
    t2 = range.valueType ?? t2;
  } else if (range.kind !== 'dyn') {
    throw celError(`${m.kind}() cannot range over ${range.kind}`);
  }
  m.ctx1 = ctx.forkWithVariable(m.vars[0], t1);
  m.ctx2 = m.ctx1.forkWithVariable(m.vars[1], t2);
  if (m.filter) checker.check(m.filter, m.ctx2);
  checker.check(m.body, m.ctx2);
  switch (m.kind) {
    case 'transformList':
      return checker.getType('list<dyn>');
    case 'transformMap':
    case 'transformMapEntry':
      return checker.getType('map<dyn, dyn>');
    default:
      return checker.getType('bool');
  }
}

function pairs(range: unknown, kind: string): Array<[unknown, unknown]> {
  if (Array.isArray(range)) return range.map((v, i) => [BigInt(i), v]);
  if (range instanceof Map) return [...range.entries()];
  if (range !== null && typeof range === 'object' && Object.getPrototypeOf(range) === Object.prototype) return Object.entries(range);
  throw celError(`${kind}() cannot range over this value`);
}

function bool(v: unknown, kind: string): boolean {
  if (typeof v !== 'boolean') throw celError(`${kind}() predicate must return bool`);
  return v;
}

/** A CEL map result: an object for string keys (as the engine's map literals), a Map otherwise. */
function mapResult(entries: Array<[unknown, unknown]>): unknown {
  if (entries.every(([k]) => typeof k === 'string')) return Object.fromEntries(entries);
  return new Map(entries);
}

function evaluate(ev: Evaluator, m: Macro, ctx: Ctx): unknown {
  const range = ev.run(m.receiver, ctx);
  if (range instanceof Promise) throw celError(`${m.kind}() does not support asynchronous ranges`);
  const items = pairs(range, m.kind);
  const ctx1 = m.ctx1 as Ctx;
  const ctx2 = m.ctx2 as Ctx;
  const run = (k: unknown, v: unknown, node: Node): unknown => {
    const c1 = ctx1.reuse(ctx).setIterValue(k, ev);
    return ev.run(node, ctx2.reuse(c1).setIterValue(v, ev));
  };
  switch (m.kind) {
    case 'all':
    case 'exists': {
      const decisive = m.kind === 'exists';
      let firstError: unknown;
      for (const [k, v] of items) {
        try {
          if (bool(run(k, v, m.body), m.kind) === decisive) return decisive;
        } catch (e) {
          firstError ??= e;
        }
      }
      if (firstError !== undefined) throw firstError;
      return !decisive;
    }
    case 'existsOne': {
      let n = 0;
      for (const [k, v] of items) if (bool(run(k, v, m.body), m.kind)) n++;
      return n === 1;
    }
    case 'transformList': {
      const out: unknown[] = [];
      for (const [k, v] of items) if (!m.filter || bool(run(k, v, m.filter), m.kind)) out.push(run(k, v, m.body));
      return out;
    }
    case 'transformMap': {
      const out: Array<[unknown, unknown]> = [];
      for (const [k, v] of items) if (!m.filter || bool(run(k, v, m.filter), m.kind)) out.push([k, run(k, v, m.body)]);
      return mapResult(out);
    }
    case 'transformMapEntry': {
      const out: Array<[unknown, unknown]> = [];
      for (const [k, v] of items) {
        const entry = run(k, v, m.body);
        for (const [ek, ev2] of pairs(entry, m.kind)) {
          if (out.some(([x]) => celEquals(x, ek))) throw celError(`insert failed: key ${String(ek)} already exists`);
          out.push([ek, ev2]);
        }
      }
      return mapResult(out);
    }
  }
}

function expander(kind: Kind, withFilter: boolean) {
  return ({ args, receiver }: { args: Node[]; receiver: Node }): Macro => ({
    kind,
    receiver,
    vars: [identifier(args[0], kind), identifier(args[1], kind)],
    filter: withFilter ? args[2] : undefined,
    body: withFilter ? args[3] : args[2],
    async: false,
    typeCheck,
    evaluate,
  });
}

function install(env: Environment): void {
  env.registerFunction('list.all(ast, ast, ast): bool', expander('all', false));
  env.registerFunction('list.exists(ast, ast, ast): bool', expander('exists', false));
  env.registerFunction('list.existsOne(ast, ast, ast): bool', expander('existsOne', false));
  env.registerFunction('list.transformList(ast, ast, ast): list<dyn>', expander('transformList', false));
  env.registerFunction('list.transformList(ast, ast, ast, ast): list<dyn>', expander('transformList', true));
  env.registerFunction('list.transformMap(ast, ast, ast): map<dyn, dyn>', expander('transformMap', false));
  env.registerFunction('list.transformMap(ast, ast, ast, ast): map<dyn, dyn>', expander('transformMap', true));
  env.registerFunction('list.transformMapEntry(ast, ast, ast): map<dyn, dyn>', expander('transformMapEntry', false));
}

registerLibrary(install);

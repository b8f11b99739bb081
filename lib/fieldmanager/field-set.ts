/**
 * FieldSet: a set of field paths, stored as the tree that fieldsV1 spells out. A node of the tree
 * is a path element; it is a *member* when the path ending there is in the set (`{}` in fieldsV1,
 * or `".": {}` next to its children) and it has *children* when longer paths pass through it.
 * Parents are not implied by children: owning `.data.key` does not own `.data`.
 *
 * Operations (union, difference, intersection) work on paths, exactly like structured-merge-diff's
 * fieldpath.Set: `difference` removes the paths of the other set, not their descendants.
 * Every operation returns a fresh set; only `insert` mutates.
 */
import { FieldPath, FieldPathError, PathElement, canonicalKey, parseElement, serializeElement } from './field-path';
import { isPlainObject } from './json-value';

interface Node {
  member: boolean;
  children: Map<string, Node>;
}

const newNode = (): Node => ({ member: false, children: new Map() });

function nodeEmpty(n: Node): boolean {
  if (n.member) return false;
  for (const c of n.children.values()) if (!nodeEmpty(c)) return false;
  return true;
}

function copyNode(n: Node): Node {
  const out = newNode();
  out.member = n.member;
  for (const [k, c] of n.children) if (!nodeEmpty(c)) out.children.set(k, copyNode(c));
  return out;
}

function unionNode(a: Node, b: Node): Node {
  const out = copyNode(a);
  out.member = a.member || b.member;
  for (const [k, c] of b.children) {
    const mine = out.children.get(k);
    const merged = mine ? unionNode(mine, c) : copyNode(c);
    if (!nodeEmpty(merged)) out.children.set(k, merged);
  }
  return out;
}

function differenceNode(a: Node, b: Node | undefined): Node {
  if (!b) return copyNode(a);
  const out = newNode();
  out.member = a.member && !b.member;
  for (const [k, c] of a.children) {
    const d = differenceNode(c, b.children.get(k));
    if (!nodeEmpty(d)) out.children.set(k, d);
  }
  return out;
}

function intersectionNode(a: Node, b: Node): Node {
  const out = newNode();
  out.member = a.member && b.member;
  for (const [k, c] of a.children) {
    const other = b.children.get(k);
    if (!other) continue;
    const i = intersectionNode(c, other);
    if (!nodeEmpty(i)) out.children.set(k, i);
  }
  return out;
}

/** Order of keys within one level: fields, then keys, values, indices; then by text. */
function compareKeys(a: string, b: string): number {
  const rank = (s: string) => ({ f: 0, k: 1, v: 2, i: 3 } as Record<string, number>)[s[0]] ?? 4;
  const d = rank(a) - rank(b);
  if (d !== 0) return d;
  if (a[0] === 'i' && b[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedKeys(n: Node): string[] {
  return [...n.children.keys()].filter((k) => !nodeEmpty(n.children.get(k) as Node)).sort(compareKeys);
}

export class FieldSet {
  /** Set by seal(): insert() refuses, and toFieldsV1() is computed once. */
  private sealedV1: Record<string, unknown> | null | undefined;

  private constructor(private readonly root: Node) {}

  /**
   * Makes this set unchangeable, for a set shared between writes (managed-fields.ts keeps the
   * fields of created objects): its fieldsV1 is then built once and handed out deep-frozen.
   */
  seal(): this {
    this.sealedV1 ??= null;
    return this;
  }

  static empty(): FieldSet {
    return new FieldSet(newNode());
  }

  /** A set holding exactly these paths (elements or serialized fieldsV1 keys). */
  static of(...paths: ReadonlyArray<PathElement | string>[]): FieldSet {
    const s = FieldSet.empty();
    for (const p of paths) s.insert(p);
    return s;
  }

  /**
   * Reads a fieldsV1 value. Keys are canonicalised (a client's `k:{"b":1, "a":2}` equals the
   * server's `k:{"a":2,"b":1}`); keys of unknown kinds are dropped, as Kubernetes does. Throws
   * FieldPathError when the value is not an object tree or a key is malformed.
   */
  static fromFieldsV1(v: unknown): FieldSet {
    if (!isPlainObject(v)) throw new FieldPathError('fieldsV1 must be a JSON object');
    return new FieldSet(readNode(v));
  }

  /** The fieldsV1 value: nested `f:`/`k:`/`v:`/`i:` keys, `{}` leaves, `"."` for members with children. */
  toFieldsV1(): Record<string, unknown> {
    if (this.sealedV1 === undefined) return writeChildren(this.root);
    return (this.sealedV1 ??= deepFreeze(writeChildren(this.root)));
  }

  /** Adds one path; the empty path (the whole object) is never tracked. Mutates this set. */
  insert(path: ReadonlyArray<PathElement | string>): this {
    if (this.sealedV1 !== undefined) throw new Error('insert into a sealed FieldSet');
    if (path.length === 0) return this;
    let n = this.root;
    for (const pe of path) {
      const key = typeof pe === 'string' ? pe : serializeElement(pe);
      let c = n.children.get(key);
      if (!c) {
        c = newNode();
        n.children.set(key, c);
      }
      n = c;
    }
    n.member = true;
    return this;
  }

  has(path: ReadonlyArray<PathElement | string>): boolean {
    if (path.length === 0) return false;
    let n: Node | undefined = this.root;
    for (const pe of path) {
      n = n.children.get(typeof pe === 'string' ? pe : serializeElement(pe));
      if (!n) return false;
    }
    return n.member;
  }

  union(other: FieldSet): FieldSet {
    return new FieldSet(unionNode(this.root, other.root));
  }

  /** Paths of this set that are not paths of `other` (descendants of other's paths stay). */
  difference(other: FieldSet): FieldSet {
    return new FieldSet(differenceNode(this.root, other.root));
  }

  intersection(other: FieldSet): FieldSet {
    return new FieldSet(intersectionNode(this.root, other.root));
  }

  isEmpty(): boolean {
    return nodeEmpty(this.root);
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }

  /**
   * The subtree below one element (serialized key), as a set of relative paths; undefined when no
   * path passes through it. The result shares nothing with this set.
   */
  child(key: string): FieldSet | undefined {
    const c = this.root.children.get(key);
    return c && !nodeEmpty(c) ? new FieldSet(copyNode(c)) : undefined;
  }

  /** Whether the one-element path `key` is a member. */
  hasMember(key: string): boolean {
    return this.root.children.get(key)?.member ?? false;
  }

  /** Serialized keys of the first level that lead somewhere (members or parents), sorted. */
  keys(): string[] {
    return sortedKeys(this.root);
  }

  /**
   * Every path, in structured-merge-diff's iteration order: at each level the members first, then
   * the paths below each child, both sorted (fields, keys, values, indices).
   */
  paths(): FieldPath[] {
    return this.keyPaths().map((p) => p.map((k) => parseElement(k) as PathElement));
  }

  /** Every path as serialized fieldsV1 keys, in the order of `paths()`. */
  keyPaths(): string[][] {
    const out: string[][] = [];
    const walk = (n: Node, prefix: string[]) => {
      const keys = sortedKeys(n);
      for (const k of keys) if ((n.children.get(k) as Node).member) out.push([...prefix, k]);
      for (const k of keys) walk(n.children.get(k) as Node, [...prefix, k]);
    };
    walk(this.root, []);
    return out;
  }
}

function readNode(v: Record<string, unknown>): Node {
  const n = newNode();
  for (const [rawKey, sub] of Object.entries(v)) {
    if (rawKey === '.') continue;
    const key = canonicalKey(rawKey);
    if (key === undefined) continue;
    if (!isPlainObject(sub)) throw new FieldPathError(`value of ${rawKey} must be a JSON object`);
    const child = readNode(sub);
    // `{}` (or only `"."`, or only unknown keys) marks a member, as in structured-merge-diff.
    if ('.' in sub || child.children.size === 0) child.member = true;
    const existing = n.children.get(key);
    n.children.set(key, existing ? unionNode(existing, child) : child);
  }
  return n;
}

function deepFreeze(v: Record<string, unknown>): Record<string, unknown> {
  for (const c of Object.values(v)) deepFreeze(c as Record<string, unknown>);
  return Object.freeze(v);
}

function writeChildren(n: Node): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of sortedKeys(n)) {
    const c = n.children.get(k) as Node;
    const below = writeChildren(c);
    out[k] = Object.keys(below).length === 0 ? {} : c.member ? { '.': {}, ...below } : below;
  }
  return out;
}

/**
 * JSON Patch (RFC 6902, `application/json-patch+json`) with JSON Pointers (RFC 6901).
 *
 * Status codes follow kube-apiserver: a body that is not a list of operations is 400 BadRequest,
 * more than 10,000 operations is 413, and an operation that cannot apply to the object (missing
 * path, failed `test`, index out of range, move into its own child) is 422 Invalid with Kubernetes'
 * message "the server rejected our request due to an error in our request", followed here by the
 * reason. Unlike Kubernetes, a malformed operation (missing or unknown `op`, `path` or `from` not a
 * pointer, missing `value`) is refused as 400 before any operation runs (RFC 5789: malformed patch).
 */
import { ApiError, errors } from '../meta/api-errors';
import { JsonObject, cloneJson, deepEqual, isPlainObject } from './json-value';

/** kube-apiserver's cap on the operations of one JSON patch (maxJSONPatchOperations). */
export const maxJsonPatchOperations = 10000;

type OpName = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

interface Operation {
  op: OpName;
  path: string[];
  pathText: string;
  from: string[];
  fromText: string;
  value: unknown;
}

const OPS: readonly OpName[] = ['add', 'remove', 'replace', 'move', 'copy', 'test'];
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * Applies `patch` (a parsed JSON Patch document) to `doc` and returns the result.
 * Never mutates `doc` or `patch`; the result shares no objects with either.
 * All operations apply or none: the first failing one throws and nothing is returned.
 * Throws ApiError 400 (malformed document), 413 (too many operations) or 422 (cannot apply).
 */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw errors.badRequest('json patch must be a JSON array of operations');
  if (patch.length > maxJsonPatchOperations) {
    throw errors.tooLarge(`Request entity too large: The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${patch.length}`);
  }
  const operations = patch.map(parseOperation);
  let root = cloneJson(doc);
  for (const op of operations) root = applyOperation(root, op);
  return root;
}

function parseOperation(raw: unknown, index: number): Operation {
  const where = `json patch operation ${index}`;
  if (!isPlainObject(raw)) throw errors.badRequest(`${where} must be a JSON object`);
  const op = raw.op;
  if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
    throw errors.badRequest(`${where}: "op" must be one of ${OPS.join(', ')}, got ${JSON.stringify(op ?? null)}`);
  }
  const pathText = pointerText(raw, 'path', where);
  const needsFrom = op === 'move' || op === 'copy';
  const fromText = needsFrom ? pointerText(raw, 'from', where) : '';
  const needsValue = op === 'add' || op === 'replace' || op === 'test';
  if (needsValue && !Object.hasOwn(raw, 'value')) throw errors.badRequest(`${where} (${op}) is missing "value"`);
  return {
    op: op as OpName,
    path: parsePointer(pathText, where),
    pathText,
    from: needsFrom ? parsePointer(fromText, where) : [],
    fromText,
    value: needsValue ? raw.value : undefined,
  };
}

function pointerText(raw: JsonObject, member: 'path' | 'from', where: string): string {
  const text = raw[member];
  if (typeof text !== 'string') throw errors.badRequest(`${where} is missing "${member}" (a JSON pointer string)`);
  return text;
}

/** RFC 6901: "" is the whole document; otherwise "/"-separated tokens with ~1 for "/" and ~0 for "~". */
function parsePointer(text: string, where: string): string[] {
  if (text === '') return [];
  if (!text.startsWith('/')) throw errors.badRequest(`${where}: ${JSON.stringify(text)} is not a JSON pointer (it must start with "/")`);
  return text.slice(1).split('/').map((token) => {
    if (/~(?![01])/.test(token)) throw errors.badRequest(`${where}: ${JSON.stringify(text)} has an invalid escape ("~" must be followed by 0 or 1)`);
    return token.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

function applyOperation(root: unknown, op: Operation): unknown {
  switch (op.op) {
    case 'add': return add(root, op.path, cloneJson(op.value), op);
    case 'remove': return remove(root, op.path, op).root;
    case 'replace': return replace(root, op);
    case 'move': return move(root, op);
    case 'copy': {
      const source = resolve(root, op.from);
      if (!source.found) throw cannotApply(`copy operation does not apply: doc is missing from path: ${op.fromText}`);
      return add(root, op.path, cloneJson(source.value), op);
    }
    case 'test': {
      const target = resolve(root, op.path);
      // RFC 6902 section 4.6: numbers by value, objects regardless of member order.
      if (!target.found || !deepEqual(target.value, op.value)) throw cannotApply(`testing value ${op.pathText} failed`);
      return root;
    }
  }
}

function add(root: unknown, path: string[], value: unknown, op: Operation): unknown {
  if (path.length === 0) return value;
  const parent = resolve(root, path.slice(0, -1));
  const last = path[path.length - 1];
  const container = parent.value;
  if (parent.found && Array.isArray(container)) {
    const index = last === '-' ? container.length : arrayIndex(last, container.length);
    if (index === undefined) throw cannotApply(`${op.op} operation does not apply: array index ${last} is out of range at ${op.pathText}`);
    container.splice(index, 0, value);
  } else if (parent.found && isPlainObject(container)) {
    setKey(container, last, value);
  } else {
    throw cannotApply(`${op.op} operation does not apply: doc is missing path: ${op.pathText}`);
  }
  return root;
}

/** Removes the value at `path` and returns it; the whole document cannot be removed. */
function remove(root: unknown, path: string[], op: Operation): { root: unknown; removed: unknown } {
  const missing = () => cannotApply(`${op.op} operation does not apply: doc is missing path: ${op.op === 'move' ? op.fromText : op.pathText}`);
  if (path.length === 0) throw cannotApply(`${op.op} operation does not apply: the whole document cannot be removed`);
  const parent = resolve(root, path.slice(0, -1));
  const last = path[path.length - 1];
  const container = parent.value;
  if (parent.found && Array.isArray(container)) {
    const index = arrayIndex(last, container.length - 1);
    if (index === undefined) throw missing();
    return { root, removed: container.splice(index, 1)[0] };
  }
  if (parent.found && isPlainObject(container) && Object.hasOwn(container, last)) {
    const removed = container[last];
    delete container[last];
    return { root, removed };
  }
  throw missing();
}

function replace(root: unknown, op: Operation): unknown {
  if (op.path.length === 0) return cloneJson(op.value);
  if (!resolve(root, op.path).found) throw cannotApply(`replace operation does not apply: doc is missing key: ${op.pathText}`);
  const parent = resolve(root, op.path.slice(0, -1)).value;
  const last = op.path[op.path.length - 1];
  if (Array.isArray(parent)) parent[Number(last)] = cloneJson(op.value);
  else setKey(parent as JsonObject, last, cloneJson(op.value));
  return root;
}

function move(root: unknown, op: Operation): unknown {
  const intoOwnChild = op.from.length < op.path.length && op.from.every((token, i) => token === op.path[i]);
  if (intoOwnChild) throw cannotApply(`move operation does not apply: cannot move ${op.fromText} into its own child ${op.pathText}`);
  if (!resolve(root, op.from).found) throw cannotApply(`move operation does not apply: doc is missing from path: ${op.fromText}`);
  const { removed } = remove(root, op.from, op);
  return add(root, op.path, removed, op);
}

/** Walks `path` from `root`; array tokens must be decimal indexes without leading zeros. */
function resolve(root: unknown, path: string[]): { found: boolean; value?: unknown } {
  let current = root;
  for (const token of path) {
    if (Array.isArray(current)) {
      const index = arrayIndex(token, current.length - 1);
      if (index === undefined) return { found: false };
      current = current[index];
    } else if (isPlainObject(current) && Object.hasOwn(current, token)) {
      current = current[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}

function arrayIndex(token: string, max: number): number | undefined {
  if (!ARRAY_INDEX.test(token)) return undefined;
  const index = Number(token);
  return index <= max ? index : undefined;
}

function cannotApply(reason: string): ApiError {
  return new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${reason}`);
}

/** Assignment that keeps a member named "__proto__" an ordinary data member. */
function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

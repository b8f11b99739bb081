/**
 * Compile errors as Kubernetes prints them (cel-go's issue format): "ERROR: <input>:L:C: message",
 * then the source line and a caret under the column, the location where cel-go puts it (the `.` of
 * a field selection, the operator of a binary expression, the `(` of a call). The engine's messages
 * are translated into cel-go's words for the common cases: undeclared references, undefined fields,
 * overloads that do not match, syntax errors.
 */

const OPERATOR_NAMES: Record<string, string> = {
  '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_',
  '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', '==': '_==_', '!=': '_!=_', in: '@in',
  '!_': '!_', '-_': '-_', '&&': '_&&_', '||': '_||_', '[]': '_[_]', '?:': '_?_:_',
};

/** The parts of an engine error this module reads. */
interface EngineError {
  name?: string;
  message?: string;
  summary?: string;
  node?: { op?: string; pos?: number; start?: number; end?: number; args?: unknown };
  range?: { start: number; end: number };
}

interface NodeLike { start?: number; end?: number; pos?: number }

/** A CEL type name as cel-go prints it: list(int), map(string, dyn). */
export function celGoTypeName(t: string): string {
  return t.trim().replace(/</g, '(').replace(/>/g, ')');
}

/** The engine's error message in cel-go's words. */
export function translateMessage(e: EngineError): string {
  const msg = e.summary ?? e.message ?? 'invalid expression';
  let m: RegExpMatchArray | null;
  if ((m = /^Unknown variable: (.+)$/.exec(msg))) return `undeclared reference to '${m[1]}' (in container '')`;
  if ((m = /^No such key: (.+)$/.exec(msg))) return `undefined field '${m[1]}'`;
  if ((m = /^no such overload: ([!-])(.+)$/.exec(msg)) && (e.node?.op === '!_' || e.node?.op === '-_')) {
    return `found no matching overload for '${m[1]}_' applied to '(${celGoTypeName(m[2])})'`;
  }
  if ((m = /^no such overload: (.+)$/.exec(msg)) && e.node?.op && OPERATOR_NAMES[e.node.op]) {
    const sep = ` ${e.node.op} `;
    const i = m[1].indexOf(sep);
    if (i > 0) return `found no matching overload for '${OPERATOR_NAMES[e.node.op]}' applied to '(${celGoTypeName(m[1].slice(0, i))}, ${celGoTypeName(m[1].slice(i + sep.length))})'`;
  }
  if ((m = /^found no matching overload for '(.+)\.([A-Za-z_][A-Za-z0-9_]*)\((.*)\)'$/.exec(msg))) {
    return `found no matching overload for '${m[2]}' applied to '${celGoTypeName(m[1])}.(${argTypes(m[3])})'`;
  }
  if ((m = /^found no matching overload for '([A-Za-z_][A-Za-z0-9_.]*)\((.*)\)'$/.exec(msg))) {
    return `found no matching overload for '${m[1]}' applied to '(${argTypes(m[2])})'`;
  }
  if ((m = /^Logical operator requires bool operands, got '(.+)'$/.exec(msg)) && e.node?.op) {
    return `found no matching overload for '${OPERATOR_NAMES[e.node.op] ?? e.node.op}' applied to '(${celGoTypeName(m[1])})'`;
  }
  if (e.name === 'ParseError') return `Syntax error: ${syntaxMessage(msg)}`;
  return msg;
}

function argTypes(s: string): string {
  return s.trim() === '' ? '' : splitTopLevel(s).map(celGoTypeName).join(', ');
}

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '<' || ch === '(') depth++;
    if (ch === '>' || ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  out.push(cur.trim());
  return out;
}

function syntaxMessage(msg: string): string {
  let m: RegExpMatchArray | null;
  if ((m = /^Unexpected token: EOF$/.exec(msg)) || (m = /^Expected .+, got EOF$/.exec(msg))) return "mismatched input '<EOF>'";
  if ((m = /^Unexpected character: '(.+)'$/.exec(msg))) return `extraneous input '${m[1]}'`;
  if ((m = /^Unterminated string/.exec(msg))) return 'token recognition error';
  return msg;
}

/** The source offset where cel-go reports an error on this node. */
export function celGoOffset(e: EngineError, input: string): number {
  const node = e.node;
  const pos = node?.pos ?? e.range?.start ?? 0;
  if (!node || e.name === 'ParseError') return pos;
  const args = node.args as unknown;
  const at = (needle: string, from: number): number => {
    const i = input.indexOf(needle, from);
    return i < 0 ? pos : i;
  };
  const endOf = (n: unknown): number => (n && typeof n === 'object' && typeof (n as NodeLike).end === 'number' ? (n as NodeLike).end as number : pos);
  switch (node.op) {
    case '.':
    case '.?': {
      let i = pos - 1;
      while (i > 0 && /\s/.test(input[i])) i--;
      if (node.op === '.?' && input[i] === '?') i--;
      return input[i] === '.' ? i : pos;
    }
    case 'call':
      return at('(', pos);
    case 'rcall':
      return Array.isArray(args) ? at('(', endOf(args[1])) : pos;
    case '[]':
    case '[?]':
      return Array.isArray(args) ? at('[', endOf(args[0])) : pos;
    case '?:':
      return Array.isArray(args) ? at('?', endOf(args[0])) : pos;
    default:
      if (Array.isArray(args) && args.length === 2 && OPERATOR_NAMES[node.op ?? ''] && node.op !== '[]') {
        return at(node.op === 'in' ? 'in' : (node.op as string), endOf(args[0]));
      }
      return pos;
  }
}

/** One issue in cel-go's format: "ERROR: <input>:L:C: msg\n | line\n | ...^". */
export function formatIssue(input: string, offset: number, message: string): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < input.length; i++) {
    if (input[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  let lineEnd = input.indexOf('\n', lineStart);
  if (lineEnd < 0) lineEnd = input.length;
  const col = offset - lineStart;
  const text = input.slice(lineStart, lineEnd);
  return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

/** The whole compile error Kubernetes reports for an engine parse or type error. */
export function compileErrorMessage(input: string, e: unknown): string {
  const err = (e && typeof e === 'object' ? e : { message: String(e) }) as EngineError;
  return `compilation failed: ${formatIssue(input, celGoOffset(err, input), translateMessage(err))}`;
}

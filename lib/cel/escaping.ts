/**
 * Property names as CEL sees them, escaped as Kubernetes escapes them (k8s.io/apiserver/pkg/cel
 * escaping): `__` becomes `__underscores__`, `.` `__dot__`, `-` `__dash__`, `/` `__slash__`, a CEL
 * reserved word `__{word}__`. A name that starts with a digit, is empty or has any other character
 * cannot be escaped and is not accessible from CEL (the field is left out of its object type).
 */

/** CEL's reserved words, as Kubernetes lists them (`namespace` among them). */
export const CEL_RESERVED_SYMBOLS: ReadonlySet<string> = new Set([
  'true', 'false', 'null', 'in',
  'as', 'break', 'const', 'continue', 'else',
  'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return',
  'var', 'void', 'while',
]);

const EXPAND = /(__|[-./]|[^a-zA-Z0-9\-./_])/g;

/** The CEL name of a property, or undefined when Kubernetes cannot escape it. */
export function escapeCelName(name: string): string | undefined {
  if (name.length === 0 || (name[0] >= '0' && name[0] <= '9')) return undefined;
  if (CEL_RESERVED_SYMBOLS.has(name)) return `__${name}__`;
  let ok = true;
  const out = name.replace(EXPAND, (s) => {
    switch (s) {
      case '__': return '__underscores__';
      case '.': return '__dot__';
      case '-': return '__dash__';
      case '/': return '__slash__';
      default: ok = false; return '';
    }
  });
  return ok ? out : undefined;
}

const UNEXPAND = /__(underscores|dot|dash|slash)__/g;

/** The property name a CEL name stands for (the inverse of escapeCelName). */
export function unescapeCelName(escaped: string): string {
  if (escaped.length > 4 && escaped.startsWith('__') && escaped.endsWith('__')) {
    const inner = escaped.slice(2, -2);
    if (CEL_RESERVED_SYMBOLS.has(inner)) return inner;
  }
  return escaped.replace(UNEXPAND, (_s, w: string) => ({ underscores: '__', dot: '.', dash: '-', slash: '/' })[w] ?? '');
}

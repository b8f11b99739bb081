/**
 * The process logger: winston, one line per entry, in one of kube-apiserver's two formats
 * (`--logging-format`): `json` (one JSON object per line, for log collectors) or `text` (klog's
 * readable header and `key=value` pairs). Unset, the format is text when stderr is a terminal and
 * JSON otherwise. Never log secret values, tokens, keys or request bodies.
 *
 * Verbosity (`-v`) is klog's: what kube-apiserver logs at V(n) is logged here only when `v(n)`
 * holds (request lines at V(3), as kube-apiserver's httplog). The winston level (`--log-level`)
 * filters on top; `-v=4` and above also raise the default `info` level to `debug`, and
 * `--log-level=debug` shows every verbosity.
 *
 * The JSON line is made by one JSON.stringify (a request line costs about half of winston's
 * timestamp+json formats); values it cannot encode (cycles, BigInt) fall back to winston's json.
 */
import winston from 'winston';

/** Where winston's transports read the finished line (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');
const fallback = winston.format.json();

const jsonLine = winston.format((info) => {
  const timestamp = new Date().toISOString();
  try {
    (info as unknown as Record<symbol, string>)[MESSAGE] = JSON.stringify({ ...info, timestamp });
  } catch {
    info.timestamp = timestamp;
    return fallback.transform(info, (fallback as unknown as { options: object }).options);
  }
  return info;
});

const SEVERITY: Record<string, string> = { error: 'E', warn: 'W', info: 'I', debug: 'I' };
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A value as klog's text format writes it: strings quoted, numbers and booleans bare, the rest as JSON. */
function textValue(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Error) return JSON.stringify(v.message);
  try {
    return JSON.stringify(v) ?? 'undefined';
  } catch {
    return JSON.stringify(String(v));
  }
}

/**
 * klog's header (`Lmmdd hh:mm:ss.uuuuuu pid`), then the message quoted and the fields as
 * `key=value` (klog's structured text); where klog writes `file:line]` this writes the process
 * name, since a Node.js call site costs a stack trace per line.
 */
const textLine = winston.format((info) => {
  const d = new Date();
  const head = `${SEVERITY[info.level] ?? 'I'}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}000 ${String(process.pid).padStart(7)} orch-apiserver]`;
  let line = `${head} ${JSON.stringify(String(info.message))}`;
  for (const [key, value] of Object.entries(info)) {
    if (key === 'level' || key === 'message' || value === undefined) continue;
    line += ` ${key}=${textValue(value)}`;
  }
  (info as unknown as Record<symbol, string>)[MESSAGE] = line;
  return info;
});

export const logger = winston.createLogger({
  level: process.env.ORCH_LOG_LEVEL ?? 'info',
  format: jsonLine(),
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
});

let verbosity = 0;

/** Whether what kube-apiserver logs at klog's V(n) is logged (`-v` at least n, or the debug level). */
export function v(n: number): boolean {
  return verbosity >= n && logger.isLevelEnabled('info');
}

export function setLogLevel(level: string): void {
  logger.level = level;
}

/**
 * The logger as the flags make it: `level` (--log-level), `verbosity` (-v) and `format`
 * (--logging-format; '' for text on a terminal, JSON otherwise).
 */
export function configureLogger(opts: { level: string; verbosity: number; format: 'text' | 'json' | '' }): void {
  verbosity = opts.level === 'debug' ? Number.MAX_SAFE_INTEGER : opts.verbosity;
  logger.level = opts.level === 'info' && opts.verbosity >= 4 ? 'debug' : opts.level;
  const format = opts.format || (process.stderr.isTTY ? 'text' : 'json');
  logger.format = format === 'text' ? textLine() : jsonLine();
}

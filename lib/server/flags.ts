/**
 * The command line: kube-apiserver's flag names, parsed into one typed ServerConfig.
 * One table (flag-table.ts, gathering each area's rows) drives parsing, defaults and the help text,
 * so a flag exists in exactly one place; this file is the one parser of them all.
 * Syntax follows Go's pflag: `--name=value`, `--name value`, bare `--bool`, `-h`/`-v` shorthands;
 * list and map flags accumulate over repeats (the first use replaces the default), scalars keep the last.
 */
import type { ServerConfig } from '../config';
import { givenTogether, type FlagDef, type FlagProblem, type ValueKind } from '../flag-definitions';
import { parseGoDuration } from '../meta/go-duration';
import { storageFlagsProblem } from '../storage/flags';
import { authenticationFlagsProblem } from '../authn/flags';
import { authorizationFlagsProblem } from '../authz/flags';
import { admissionFlagsProblem } from '../admission/flags';
import { certificateFlagsProblem } from '../certificates/flags';
import { kubeletFlagsProblem } from '../kubelet/flags';
import { controllerFlagsProblem } from '../controllers/flags';
import { auditFlagsProblem } from '../audit/flags';
import { FLAGS } from './flag-table';
import { emulatedMinor, KUBE_SECTIONS, KUBE_SECTION_OF, REMOVED_FLAGS, WITHOUT_EFFECT } from './kube-flags';

export { FLAGS };

export type FlagErrorCode =
  'UnknownFlag' | 'MissingValue' | 'InvalidValue' | 'UnexpectedArgument' | 'IncompatibleFlags';

/** A command-line mistake. `message` is one line fit for stderr; callers branch on `code`. */
export class FlagError extends Error {
  readonly code: FlagErrorCode;
  /** The flag concerned, without dashes, when there is one. */
  readonly flag?: string;
  constructor(code: FlagErrorCode, message: string, flag?: string) {
    super(message);
    this.name = 'FlagError';
    this.code = code;
    this.flag = flag;
  }
}

/**
 * Parses a Go duration (`300ms`, `1.5h`, `2h45m`, `0`) into milliseconds, rounded to whole
 * nanoseconds. Every number needs a unit except a lone `0`. Throws FlagError('InvalidValue').
 */
export function parseDuration(text: string): number {
  try {
    return parseGoDuration(text);
  } catch (err) {
    throw new FlagError('InvalidValue', (err as Error).message);
  }
}

const BY_NAME = new Map(FLAGS.map((f) => [f.name, f]));
const BY_SHORTHAND = new Map(FLAGS.filter((f) => f.shorthand).map((f) => [f.shorthand!, f]));

// ---- parsing ----

function parseValue(f: FlagDef, raw: string, previous: unknown): unknown {
  const kind = f.kind as ValueKind<unknown>;
  let reason: string | undefined;
  let value: unknown;
  try {
    value = kind.parse(raw, previous);
    reason = f.check?.(value as never);
  } catch (err) {
    reason = (err as Error).message;
  }
  if (reason !== undefined) {
    throw new FlagError('InvalidValue', `invalid value ${JSON.stringify(raw)} for --${f.name}: ${reason}`, f.name);
  }
  return value;
}

function unexpected(arg: string): FlagError {
  return new FlagError('UnexpectedArgument',
    `unexpected argument ${JSON.stringify(arg)}: only flags are accepted (booleans take --flag=false)`);
}

/**
 * Rules between flags, checked on the complete config: the serving pair here, each area's own
 * rules in its flags file; the first broken one is thrown.
 */
function checkCombinations(c: ServerConfig, given?: ReadonlySet<string>): void {
  const problem: FlagProblem | undefined = givenTogether('tls-cert-file', c.tlsCertFile, 'tls-private-key-file', c.tlsPrivateKeyFile)
    ?? givenTogether('proxy-client-cert-file', c.proxyClientCertFile, 'proxy-client-key-file', c.proxyClientKeyFile)
    ?? storageFlagsProblem(c)
    ?? authenticationFlagsProblem(c)
    ?? certificateFlagsProblem(c)
    ?? kubeletFlagsProblem(c)
    ?? authorizationFlagsProblem(c, given)
    ?? auditFlagsProblem(c)
    ?? controllerFlagsProblem(c)
    ?? admissionFlagsProblem(c);
  if (problem) throw new FlagError(problem.code, problem.message, problem.flag);
}

/** A parsed command line: the complete config, and which flags it gave. */
export interface CommandLine {
  config: ServerConfig;
  /** The long names (without dashes) of the flags given, whatever their values. */
  given: ReadonlySet<string>;
}

/**
 * Parses `argv` (without node and the script) into a complete ServerConfig: every flag not
 * given gets its default. Throws FlagError with a one-line message on an unknown flag, a
 * missing or invalid value, a positional argument, or a broken rule between flags (those
 * rules are skipped when `--help` is given, so help always prints).
 */
export function parseCommandLine(argv: string[]): CommandLine {
  const given = new Map<string, unknown>();
  const names = new Set<string>();
  const removedGiven: { name: string; raw: string; lastMinor: number }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      if (i + 1 < argv.length) throw unexpected(argv[i + 1]);
      break;
    }
    if (!arg.startsWith('-') || arg === '-') throw unexpected(arg);
    const long = arg.startsWith('--');
    const body = arg.slice(long ? 2 : 1);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const f = long ? BY_NAME.get(name) : BY_SHORTHAND.get(name);
    const removed = long && !f ? REMOVED_FLAGS.get(name) : undefined;
    if (removed) {
      // Known only to releases up to removed.lastMinor: decided once --emulated-version is read.
      let raw = 'true';
      if (eq >= 0) raw = body.slice(eq + 1);
      else if (!removed.isBool && i + 1 < argv.length && !argv[i + 1].startsWith('--')) raw = argv[++i];
      else if (!removed.isBool) throw new FlagError('MissingValue', `flag needs an argument: --${name}`, name);
      removedGiven.push({ name, raw, lastMinor: removed.lastMinor });
      continue;
    }
    if (!f) {
      const shown = /^[\w.-]*$/.test(name) ? name : JSON.stringify(name); // keep the message on one line
      throw new FlagError('UnknownFlag', `unknown flag: ${long ? '--' : '-'}${shown}`, name);
    }
    let raw: string;
    if (eq >= 0) raw = body.slice(eq + 1);
    else if (f.kind.isBool) raw = 'true';
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) raw = argv[++i];
    else throw new FlagError('MissingValue', `flag needs an argument: --${f.name}`, f.name);
    given.set(f.key, parseValue(f, raw, given.get(f.key)));
    names.add(f.name);
  }
  const config: Record<string, unknown> = {};
  for (const f of FLAGS) config[f.key] = given.has(f.key) ? given.get(f.key) : structuredClone(f.default);
  const result = config as unknown as ServerConfig;
  // A flag 1.32 removed: refused as pflag refuses any unknown flag, unless the emulated release had it.
  const minor = emulatedMinor(result.emulatedVersion);
  for (const r of removedGiven) {
    if (minor > r.lastMinor) throw new FlagError('UnknownFlag', `unknown flag: --${r.name}`, r.name);
    result.kubeFlagsWithoutEffect = { ...result.kubeFlagsWithoutEffect, [r.name]: r.raw };
    names.add(r.name);
  }
  if (!result.help) checkCombinations(result, names);
  return { config: result, given: names };
}

/** parseCommandLine's config alone: for callers that do not ask which flags were given. */
export function parseFlags(argv: string[]): ServerConfig {
  return parseCommandLine(argv).config;
}

/**
 * The flags among `given` that are accepted without effect (FlagDef.withoutEffect, and the removed
 * flags --emulated-version let through), as `--name`, in help order then the removed ones: the start
 * warns of them whenever they are given, default value or not.
 */
export function flagsWithoutEffect(given: ReadonlySet<string>): string[] {
  const removed = [...given].filter((n) => REMOVED_FLAGS.has(n)).sort();
  return [...FLAGS.filter((f) => f.withoutEffect && given.has(f.name)).map((f) => f.name), ...removed].map((n) => `--${n}`);
}

/**
 * Why each flag of flagsWithoutEffect(given) has no effect here, by `--name`: the one warning the
 * start logs carries it.
 */
export function withoutEffectReasons(given: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const dashed of flagsWithoutEffect(given)) {
    const name = dashed.slice(2);
    const removed = REMOVED_FLAGS.get(name);
    out[dashed] = removed
      ? `removed after kube-apiserver 1.${removed.lastMinor}; accepted for --emulated-version, without effect`
      : BY_NAME.get(name)!.help.replace(WITHOUT_EFFECT, '').replace(/^Without effect here: /, '').trim();
  }
  return out;
}

function flagLine(f: FlagDef, width: number, left: string): string {
  const shown = (f.kind as ValueKind<unknown>).show(f.default);
  const zero = ['', 'false', '0', '0s'].includes(shown);
  const dflt = zero ? '' : ` (default ${f.kind.type === 'string' ? JSON.stringify(shown) : shown})`;
  // A multi-line help (runtime-config, feature-gates) continues under its first line, as pflag prints it.
  const help = f.help.replaceAll('\n', `\n${' '.repeat(width + 5)}`);
  return `  ${left.padEnd(width)}   ${help}${dflt}`;
}

/** The flags in the order --help prints them: kube-apiserver's sections (names sorted), then this server's own flags. */
export function helpSections(): { title: string; flags: FlagDef[] }[] {
  const sections = KUBE_SECTIONS.map(([title, names]) => ({
    title: `${title} flags`,
    flags: names.map((n) => BY_NAME.get(n)).filter((f): f is FlagDef => f !== undefined),
  }));
  sections.push({ title: 'orch-apiserver flags', flags: FLAGS.filter((f) => !KUBE_SECTION_OF.has(f.name)) });
  return sections.filter((s) => s.flags.length > 0);
}

/** Usage text: kube-apiserver's sections, one line per flag with its type, meaning and (non-empty) default. */
export function helpText(): string {
  const lefts = new Map(FLAGS.map((f) => {
    const names = `${f.shorthand ? `-${f.shorthand}, ` : '    '}--${f.name}`;
    // A plain boolean shows no type; --version shows pflag's version[=true].
    return [f.name, f.kind.isBool && f.kind.type === 'bool' ? names : `${names} ${f.kind.type}`];
  }));
  const width = Math.max(...[...lefts.values()].map((l) => l.length));
  const out = ['Usage:', '  orch-apiserver [flags]', ''];
  for (const s of helpSections()) {
    out.push(`${s.title}:`, '', ...s.flags.map((f) => flagLine(f, width, lefts.get(f.name)!)), '');
  }
  return out.join('\n');
}

/**
 * Kubernetes' format library (library/format.go, in the base environment since 1.31): named string
 * formats `format.dns1123Label()`, ... `format.datetime()` and `format.named(name)` (optional.none for
 * an unknown name), each with `.validate(str)` returning optional.none when valid, else an optional
 * list of Kubernetes' error strings. Name rules come from lib/meta's validators (the same rules the
 * API applies to object names and labels); uri is Go's url.ParseRequestURI; uuid, byte, date and
 * datetime are kube-openapi strfmt's checks.
 *
 * Cost (library/cost.go): validate costs ceil(size * 0.1) * the format's regex size (MaxRegexSize:
 * 30 for labels, 60 for subdomains and qualified names, 40 for label values) (FORMAT_COSTS).
 */

import { registerLibrary } from '../environment';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue } from '../../meta/validation';
import { declareNamespace, Optional } from './engine';
import { parseRequestURI } from './go-url';
import { STRING_TRAVERSAL, type CostTable } from './cost-table';

/** The CEL kubernetes.NamedFormat value. */
export class NamedFormat {
  constructor(readonly name: string, readonly validate: (s: string) => string[], readonly maxRegexSize: number) {}
  celEquals(other: unknown): boolean {
    return other instanceof NamedFormat && other.name === this.name;
  }
}

// Kubernetes' maskTrailingDash (NameIsDNSLabel(s, true) and friends): a trailing '-' of a prefix is allowed.
const maskTrailingDash = (name: string): string => (name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

/** Go's time.Parse("2006-01-02", s) succeeding. */
function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days;
}

/** kube-openapi strfmt.IsDateTime. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = TIME.exec(parts[1]);
  return m !== null && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

/** Go's base64.StdEncoding.DecodeString succeeding (padding required, no whitespace other than CR/LF). */
function isBase64(s: string): boolean {
  const t = s.replace(/[\r\n]/g, '');
  return t.length % 4 === 0 && /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(t);
}

const check = (ok: (s: string) => boolean, message: string) => (s: string): string[] => (ok(s) ? [] : [message]);

export const CONSTANT_FORMATS: Record<string, NamedFormat> = {
  dns1123Label: new NamedFormat('DNS1123Label', isDns1123Label, 30),
  dns1123Subdomain: new NamedFormat('DNS1123Subdomain', isDns1123Subdomain, 60),
  dns1035Label: new NamedFormat('DNS1035Label', isDns1035Label, 30),
  qualifiedName: new NamedFormat('QualifiedName', isQualifiedName, 60),
  dns1123LabelPrefix: new NamedFormat('DNS1123LabelPrefix', (s) => isDns1123Label(maskTrailingDash(s)), 30),
  dns1123SubdomainPrefix: new NamedFormat('DNS1123SubdomainPrefix', (s) => isDns1123Subdomain(maskTrailingDash(s)), 60),
  dns1035LabelPrefix: new NamedFormat('DNS1035LabelPrefix', (s) => isDns1035Label(maskTrailingDash(s)), 30),
  labelValue: new NamedFormat('LabelValue', isValidLabelValue, 40),
  uri: new NamedFormat('URI', (s) => {
    try {
      parseRequestURI(s);
      return [];
    } catch (e) {
      return [(e as Error).message];
    }
  }, 1000),
  uuid: new NamedFormat('uuid', check((s) => UUID.test(s), 'does not match the UUID format'), 100),
  byte: new NamedFormat('byte', check(isBase64, 'invalid base64'), 100),
  date: new NamedFormat('date', check(isDate, 'invalid date'), 100),
  datetime: new NamedFormat('datetime', check(isDateTime, 'invalid datetime'), 100),
};

export const FORMAT_COSTS: CostTable = {
  'kubernetes.NamedFormat.validate': { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL, note: "times the format's maxRegexSize" },
  'format.named': { kind: 'constant', cost: 1 },
};

registerLibrary((env) => {
  env.registerType('kubernetes.NamedFormat', NamedFormat);
  env.registerOperator('kubernetes.NamedFormat == kubernetes.NamedFormat', (a: NamedFormat, b: NamedFormat) => a.celEquals(b));
  declareNamespace(env, 'format', 'kubernetes.FormatNamespace');
  for (const [name, f] of Object.entries(CONSTANT_FORMATS)) env.registerFunction(`kubernetes.FormatNamespace.${name}(): kubernetes.NamedFormat`, () => f);
  env.registerFunction('kubernetes.FormatNamespace.named(string): optional<kubernetes.NamedFormat>', (_: unknown, name: string) =>
    Object.hasOwn(CONSTANT_FORMATS, name) ? Optional.of(CONSTANT_FORMATS[name]) : Optional.none(),
  );
  env.registerFunction('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: NamedFormat, s: string) => {
    const errs = f.validate(s);
    return errs.length === 0 ? Optional.none() : Optional.of(errs);
  });
});

/**
 * robfig/cron v3's ParseStandard, as CronJob validation calls it, reduced to whether a schedule
 * parses and, when not, the error text cron returns (Kubernetes puts it in the field error):
 * five fields (minute hour day-of-month month day-of-week; names jan-dec and sun-sat; `*`, `?`,
 * ranges, steps and lists) or a descriptor (@yearly, @annually, @monthly, @weekly, @daily,
 * @midnight, @hourly, `@every <Go duration>`), optionally after `TZ=` or `CRON_TZ=<zone> `.
 * And Go's time.LoadLocation, as timeZone validation uses it: a zone of the IANA database.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseGoDuration } from '../../../meta/go-duration';

interface Bounds { min: number; max: number; names?: Record<string, number> }

const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: Bounds[] = [
  { min: 0, max: 59 }, { min: 0, max: 23 }, { min: 1, max: 31 }, { min: 1, max: 12, names: MONTHS }, { min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const ZONEINFO = '/usr/share/zoneinfo';

class CronError extends Error {}
const fail = (message: string): never => { throw new CronError(message); };

/** strconv.Atoi, with Go's error text. */
function atoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) return fail(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63 - 1) return fail(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return n;
}

function mustParseInt(expr: string): number {
  let n: number;
  try {
    n = atoi(expr);
  } catch (e) {
    return fail(`failed to parse int from ${expr}: ${(e as Error).message}`);
  }
  if (n < 0) fail(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

const parseIntOrName = (expr: string, names?: Record<string, number>): number =>
  (names && Object.hasOwn(names, expr.toLowerCase()) ? names[expr.toLowerCase()] : mustParseInt(expr));

/** getRange: one `a`, `a-b`, `*`, `?`, each with an optional `/step`. */
function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0], r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1], r.names);
    else return fail(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]);
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) {
    fail(`too many slashes: ${expr}`);
  }
  if (start < r.min) fail(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) fail(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) fail(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) fail(`step of range should be a positive number: ${expr}`);
}

/** time.LoadLocation's answer for `name`: undefined when it loads, else Go's error text. */
export function loadLocationError(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  const unknown = `unknown time zone ${name}`;
  if (name.includes('..') || name.startsWith('/') || name.includes('\\')) return unknown;
  if (existsSync(ZONEINFO)) {
    try {
      return statSync(join(ZONEINFO, name)).isFile() ? undefined : unknown;
    } catch {
      return unknown;
    }
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return undefined;
  } catch {
    return unknown;
  }
}

/** The error cron.ParseStandard returns for `spec`, or undefined when it parses. */
export function cronParseError(spec: string): string | undefined {
  try {
    parseStandard(spec);
    return undefined;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}

function parseStandard(input: string): void {
  let spec = input;
  if (spec.length === 0) fail('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
    const err = loadLocationError(zone);
    if (err) fail(`provided bad location ${zone}: ${err}`);
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.includes(spec)) return;
    if (spec.startsWith('@every ')) {
      try {
        parseGoDuration(spec.slice('@every '.length));
      } catch (e) {
        fail(`failed to parse duration ${spec}: time: ${(e as Error).message}`);
      }
      return;
    }
    fail(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) fail(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  fields.forEach((field, i) => {
    for (const expr of field.split(',').filter((e) => e !== '')) checkRange(expr, FIELDS[i]);
  });
}

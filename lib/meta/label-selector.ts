/**
 * Label selectors in both of Kubernetes' forms: the string syntax of the `labelSelector`
 * query parameter (`a=b,c in (x,y),!d`) and the metav1.LabelSelector object
 * (`matchLabels` / `matchExpressions`). Both become one list of requirements, all of which
 * must hold. Grammar, tokenising and error texts follow Kubernetes' labels.Parse.
 */
import { errors } from './api-errors';
import { FieldError, child, fieldErrors, index } from './field-errors';
import { isQualifiedName, isValidLabelValue } from './validation';

/** Kubernetes' selection operators (`==` is read as `=`; `!` is DoesNotExist). */
export type LabelOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** One condition on one label key. */
export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted, without duplicates: one value for =, !=, gt, lt; at least one for in/notin; none otherwise. */
  values: string[];
}

/** Requirements that must all hold; none selects everything. */
export interface LabelSelector {
  requirements: LabelRequirement[];
}

/** metav1.LabelSelector as it appears in an object. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

type TokenKind = 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'end';
interface Token { kind: TokenKind; lit: string }

const SPECIAL = '=!(),><';
const WHITESPACE = ' \t\r\n';

/** Splits a selector into tokens; runs of special characters become the longest operator. */
function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && WHITESPACE.includes(s[i])) i++;
    if (i >= s.length) {
      out.push({ kind: 'end', lit: '' });
      return out;
    }
    if (SPECIAL.includes(s[i])) {
      const two = s.slice(i, i + 2);
      const lit = two === '==' || two === '!=' ? two : s[i];
      out.push({ kind: lit as TokenKind, lit });
      i += lit.length;
      continue;
    }
    let j = i;
    while (j < s.length && !SPECIAL.includes(s[j]) && !WHITESPACE.includes(s[j])) j++;
    const lit = s.slice(i, j);
    out.push({ kind: lit === 'in' || lit === 'notin' ? lit : 'id', lit });
    i = j;
  }
}

class SelectorSyntaxError extends Error {}
const fail = (message: string): never => {
  throw new SelectorSyntaxError(message);
};

const OPERATORS: Partial<Record<TokenKind, LabelOperator>> = {
  in: 'in', notin: 'notin', '=': '=', '==': '=', '!=': '!=', '>': 'gt', '<': 'lt',
};

/** A recursive-descent reader over the tokens, shaped like Kubernetes' Parser. */
class Parser {
  private pos = 0;

  constructor(private readonly tokens: Token[]) {}

  // 'in' and 'notin' are operators only right after a key; elsewhere they are words (`in in (in)`).
  private peek(asWord = true): Token {
    const t = this.tokens[Math.min(this.pos, this.tokens.length - 1)];
    return asWord && (t.kind === 'in' || t.kind === 'notin') ? { kind: 'id', lit: t.lit } : t;
  }

  private next(asWord = true): Token {
    const t = this.peek(asWord);
    this.pos++;
    return t;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'end') return reqs;
      if (t.kind !== 'id' && t.kind !== '!') fail(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.requirement());
      } catch (e) {
        if (e instanceof SelectorSyntaxError) fail(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const sep = this.next();
      if (sep.kind === 'end') return reqs;
      if (sep.kind !== ',') fail(`found '${sep.lit}', expected: ',' or 'end of string'`);
      const after = this.peek();
      if (after.kind !== 'id' && after.kind !== '!') fail(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    let t = this.next();
    const negated = t.kind === '!';
    if (negated) t = this.next();
    if (t.kind !== 'id') fail(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) fail(`invalid label key ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    const la = this.peek();
    // A bare key (or !key) is an existence test; anything after `!key` is left to the caller to reject.
    if (negated) return { key, operator: '!', values: [] };
    if (la.kind === 'end' || la.kind === ',') return { key, operator: 'exists', values: [] };

    const opTok = this.next(false);
    const operator = OPERATORS[opTok.kind];
    if (!operator) return fail(`found '${opTok.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    const values = operator === 'in' || operator === 'notin' ? this.valueSet() : [this.exactValue()];
    return checkedRequirement(key, operator, values);
  }

  /** `(a,b,c)`; empty entries are the empty value, so `()` is the set {""} as in Kubernetes. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') fail(`found '${open.lit}' expected: '('`);
    const first = this.peek();
    if (first.kind === ')') {
      this.next();
      return [''];
    }
    if (first.kind !== 'id' && first.kind !== ',') fail(`found '${first.lit}', expected: ',', ')' or identifier`);
    const values: string[] = [];
    let expectValue = true;
    for (;;) {
      const t = this.next();
      if (t.kind === 'id' && expectValue) {
        values.push(t.lit);
        expectValue = false;
        const la = this.peek();
        if (la.kind !== ',' && la.kind !== ')') fail(`found '${la.lit}', expected: ',' or ')'`);
      } else if (t.kind === ',') {
        if (expectValue) values.push('');
        expectValue = true;
      } else if (t.kind === ')') {
        if (expectValue) values.push('');
        return values;
      } else {
        fail(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
  }

  /** The one value after =, ==, !=, >, <; nothing before ',' or the end is the empty value. */
  private exactValue(): string {
    const la = this.peek();
    if (la.kind === 'end' || la.kind === ',') return '';
    const t = this.next();
    if (t.kind !== 'id') fail(`found '${t.lit}', expected: identifier`);
    return t.lit;
  }
}

// Go's strconv.ParseInt(s, 10, 64).
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Kubernetes' NewRequirement checks on a parsed requirement; values come back sorted and unique. */
function checkedRequirement(key: string, operator: LabelOperator, raw: string[]): LabelRequirement {
  const values = [...new Set(raw)].sort();
  if ((operator === 'gt' || operator === 'lt') && parseInt64(values[0]) === undefined) {
    fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
  }
  for (const v of values) {
    const errs = isValidLabelValue(v);
    if (errs.length) fail(`invalid label value: ${JSON.stringify(v)}: at key: ${JSON.stringify(key)}: ${errs.join('; ')}`);
  }
  return { key, operator, values };
}

/**
 * Parses the string form. '' (or only blanks) selects everything. Throws a 400 BadRequest
 * ApiError naming the problem, e.g. `unable to parse requirement: found '', expected: identifier`.
 */
export function parseLabelSelector(s: string): LabelSelector {
  try {
    const requirements = new Parser(tokenize(s)).parse();
    // Sorted by key, as Kubernetes does, so equal selectors compare equal.
    requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { requirements };
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw errors.badRequest(e.message);
    throw e;
  }
}

/** Whether the selector has no requirements, i.e. selects everything. */
export function isEmpty(sel: LabelSelector): boolean {
  return sel.requirements.length === 0;
}

function matchesRequirement(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case '=':
    case 'in':
      return has && r.values.includes(value as string);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(value as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const actual = has ? parseInt64(value as string) : undefined;
      const bound = r.values.length === 1 ? parseInt64(r.values[0]) : undefined;
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/**
 * Whether `labels` satisfy every requirement. Absent labels are an empty set, so `!=`,
 * `notin` and `!` hold on them and everything else fails.
 */
export function matchesLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const set = labels ?? {};
  return sel.requirements.every((r) => matchesRequirement(r, set));
}

const OBJECT_OPERATORS: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * Converts a metav1.LabelSelector (Kubernetes' LabelSelectorAsSelector) after checking it as
 * ValidateLabelSelector does, with errors under `path`. `selector` is set exactly when `errors`
 * is empty. An empty object selects everything; what an absent selector means is the caller's.
 * `opts.allowInvalidExpressionValues` skips the label-value check of matchExpressions values only
 * (Kubernetes' AllowInvalidLabelValueInSelector, for updates of objects stored with such values):
 * the errors are then what validation reports, while `selector` still needs valid values.
 */
export function labelSelectorFromObject(obj: unknown, path = 'selector', opts: { allowInvalidExpressionValues?: boolean } = {}):
  { selector?: LabelSelector; errors: FieldError[] } {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    return { errors: [fieldErrors.typeInvalid(path, obj, 'must be of type object')] };
  }
  const { matchLabels, matchExpressions } = obj as Record<string, unknown>;
  const errs: FieldError[] = [];
  const requirements: LabelRequirement[] = [];
  let unusable = false;

  const labelsPath = child(path, 'matchLabels');
  if (matchLabels !== undefined && matchLabels !== null) {
    if (typeof matchLabels !== 'object' || Array.isArray(matchLabels)) {
      errs.push(fieldErrors.typeInvalid(labelsPath, matchLabels, 'must be of type object'));
    } else {
      for (const [k, v] of Object.entries(matchLabels)) {
        if (typeof v !== 'string') {
          errs.push(fieldErrors.typeInvalid(index(labelsPath, k), v, 'must be of type string'));
          continue;
        }
        for (const m of isQualifiedName(k)) errs.push(fieldErrors.invalid(labelsPath, k, m));
        for (const m of isValidLabelValue(v)) errs.push(fieldErrors.invalid(labelsPath, v, m));
        requirements.push({ key: k, operator: '=', values: [v] });
      }
    }
  }

  const exprsPath = child(path, 'matchExpressions');
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) {
      errs.push(fieldErrors.typeInvalid(exprsPath, matchExpressions, 'must be of type array'));
    } else {
      matchExpressions.forEach((expr: unknown, i) => {
        const r = requirementFromObject(expr, index(exprsPath, i), errs, opts.allowInvalidExpressionValues ?? false);
        if (r === null) unusable = true;
        else if (r) requirements.push(r);
      });
    }
  }

  if (errs.length || unusable) return { errors: errs };
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { selector: { requirements }, errors: [] };
}

/**
 * One matchExpressions entry, checked as ValidateLabelSelectorRequirement does: undefined when
 * errors were reported, null when its values are not label values but allowed to pass validation.
 */
function requirementFromObject(expr: unknown, path: string, errs: FieldError[], allowInvalidValues: boolean): LabelRequirement | null | undefined {
  if (typeof expr !== 'object' || expr === null || Array.isArray(expr)) {
    errs.push(fieldErrors.typeInvalid(path, expr, 'must be of type object'));
    return undefined;
  }
  const { key, operator, values } = expr as Record<string, unknown>;
  const before = errs.length;
  const valuesPath = child(path, 'values');
  let list: string[] = [];
  if (values !== undefined && values !== null) {
    if (!Array.isArray(values)) errs.push(fieldErrors.typeInvalid(valuesPath, values, 'must be of type array'));
    else {
      values.forEach((v: unknown, i) => {
        if (typeof v !== 'string') errs.push(fieldErrors.typeInvalid(index(valuesPath, i), v, 'must be of type string'));
      });
      list = values.filter((v): v is string => typeof v === 'string');
    }
  }
  const op = typeof operator === 'string' ? OBJECT_OPERATORS[operator] : undefined;
  if (op === 'in' || op === 'notin') {
    if (!list.length) errs.push(fieldErrors.required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (op) {
    if (list.length) errs.push(fieldErrors.forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  } else {
    errs.push(fieldErrors.invalid(child(path, 'operator'), operator ?? '', 'not a valid selector operator'));
  }
  if (typeof key !== 'string') {
    errs.push(fieldErrors.typeInvalid(child(path, 'key'), key ?? null, 'must be of type string'));
  } else {
    for (const m of isQualifiedName(key)) errs.push(fieldErrors.invalid(child(path, 'key'), key, m));
  }
  let badValue = false;
  list.forEach((v, i) => {
    for (const m of isValidLabelValue(v)) {
      badValue = true;
      if (!allowInvalidValues) errs.push(fieldErrors.invalid(index(valuesPath, i), v, m));
    }
  });
  if (errs.length > before || !op || typeof key !== 'string') return undefined;
  if (badValue) return null;
  return { key, operator: op, values: [...new Set(list)].sort() };
}

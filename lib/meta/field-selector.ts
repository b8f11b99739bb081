/**
 * Field selectors: the `fieldSelector` query parameter, `f=v`, `f==v` or `f!=v` terms joined
 * by commas, all of which must hold. Values escape `\,`, `\=` and `\\`; field names have no
 * escapes and no whitespace trimming. Syntax and texts follow Kubernetes' fields.ParseSelector.
 */
import { errors } from './api-errors';

/** Field selectors only compare for (in)equality. */
export type FieldOperator = '=' | '!=';

/** One condition on one field. */
export interface FieldRequirement {
  field: string;
  /** `==` is read as `=`. */
  operator: FieldOperator;
  /** Unescaped. */
  value: string;
}

/** Requirements that must all hold; none selects everything. */
export interface FieldSelector {
  requirements: FieldRequirement[];
}

/** Splits on commas not escaped by a backslash; the escapes stay in the terms. */
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    if (escaped) escaped = false;
    else if (s[i] === '\\') escaped = true;
    else if (s[i] === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

// '!=' and '==' are tried before '=' at each position, so `a==b` does not read as `a` = `=b`.
const TERM_OPERATORS = ['!=', '==', '='] as const;

/** The term split at the first operator; field names cannot contain one. */
function splitTerm(term: string): { field: string; op: string; raw: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const op = TERM_OPERATORS.find((o) => term.startsWith(o, i));
    if (op) return { field: term.slice(0, i), op, raw: term.slice(i + op.length) };
  }
  return undefined;
}

/** Kubernetes' UnescapeValue: `\\`, `\,` and `\=` are the only escapes; bare `,` and `=` are errors. */
function unescapeValue(raw: string): string {
  let out = '';
  let escaped = false;
  for (const c of raw) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw errors.badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      escaped = false;
    } else if (c === '\\') {
      escaped = true;
    } else if (c === ',' || c === '=') {
      throw errors.badRequest(`invalid field selector: unescaped character in value: ${c}`);
    } else {
      out += c;
    }
  }
  if (escaped) throw errors.badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/**
 * Parses the string form; '' selects everything and empty terms are skipped. Throws a 400
 * BadRequest ApiError on bad syntax (`invalid selector: '<s>'; can't understand '<term>'`) and,
 * after the syntax is checked, on a field not in `allowedFields`
 * (`field label not supported: <field>`).
 */
export function parseFieldSelector(s: string, allowedFields: string[]): FieldSelector {
  const { requirements } = parseFieldSelectorSyntax(s);
  const unknown = requirements.find((r) => !allowedFields.includes(r.field));
  if (unknown) throw errors.badRequest(`field label not supported: ${unknown.field}`);
  return { requirements };
}

/** A field selector's terms, whatever their fields (Kubernetes' fields.ParseSelector); 400 on bad syntax. */
export function parseFieldSelectorSyntax(s: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  // Sorted as Kubernetes does, which decides which bad term is reported first.
  for (const term of splitTerms(s).sort()) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw errors.badRequest(`invalid selector: '${s}'; can't understand '${term}'`);
    const value = unescapeValue(parts.raw);
    requirements.push({ field: parts.field, operator: parts.op === '!=' ? '!=' : '=', value });
  }
  return { requirements };
}

/** Whether `fields` satisfy every requirement; a field missing from `fields` reads as ''. */
export function matchesFields(sel: FieldSelector, fields: Record<string, string>): boolean {
  return sel.requirements.every((r) => {
    const actual = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field] : '';
    return r.operator === '=' ? actual === r.value : actual !== r.value;
  });
}

/**
 * The value an `=` (or `==`) requirement demands of `field`, or undefined when there is none
 * (Kubernetes' RequiresExactMatch). Lets the store narrow a read to one name or namespace.
 */
export function requirementFor(sel: FieldSelector, field: string): string | undefined {
  return sel.requirements.find((r) => r.field === field && r.operator === '=')?.value;
}

/**
 * The error Go's encoding/json gives for a text that is not a JSON object, in its words:
 * Kubernetes puts this text into the 422 of a docker-config Secret whose JSON does not parse
 * (`invalid character 'x' looking for beginning of value`, `unexpected end of JSON input`).
 */

const WS = ' \t\r\n';

class SyntaxProblem extends Error {}

const quoteChar = (c: string): string => (c === "'" ? "'\\''" : c === '"' ? "'\"'" : `'${c}'`);

/** A scanner over `s` that throws SyntaxProblem with Go's message at the first error. */
function scan(s: string): void {
  let i = 0;
  const end = () => { throw new SyntaxProblem('unexpected end of JSON input'); };
  const bad = (context: string) => { throw new SyntaxProblem(`invalid character ${quoteChar(s[i])} ${context}`); };
  const skip = () => { while (i < s.length && WS.includes(s[i])) i++; };
  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (i >= s.length) end();
      if (s[i] !== word[k]) bad(`in literal ${word} (expecting ${quoteChar(word[k])})`);
    }
    i++;
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= s.length) end();
      const c = s[i];
      if (c === '"') { i++; return; }
      if (c < ' ') bad('in string literal');
      if (c === '\\') {
        i++;
        if (i >= s.length) end();
        if ('"\\/bfnrt'.includes(s[i])) i++;
        else if (s[i] === 'u') {
          for (let k = 0; k < 4; k++) { i++; if (i >= s.length) end(); if (!/[0-9a-fA-F]/.test(s[i])) bad('in \\u hexadecimal character escape'); }
          i++;
        } else bad('in string escape code');
      } else i++;
    }
  };
  const digits = (context: string) => {
    if (i >= s.length) end();
    if (!/[0-9]/.test(s[i])) bad(context);
    while (i < s.length && /[0-9]/.test(s[i])) i++;
  };
  const number = () => {
    if (s[i] === '-') { i++; if (i >= s.length) end(); if (!/[0-9]/.test(s[i])) bad('in numeric literal'); }
    if (s[i] === '0') i++;
    else digits('in numeric literal');
    if (s[i] === '.') { i++; digits('after decimal point in numeric literal'); }
    if (s[i] === 'e' || s[i] === 'E') {
      i++;
      if (s[i] === '+' || s[i] === '-') i++;
      digits('in exponent of numeric literal');
    }
  };
  const value = (): void => {
    skip();
    if (i >= s.length) end();
    const c = s[i];
    if (c === '{') {
      i++; skip();
      if (i >= s.length) end();
      if (s[i] === '}') { i++; return; }
      for (;;) {
        skip();
        if (i >= s.length) end();
        if (s[i] !== '"') bad('looking for beginning of object key string');
        string(); skip();
        if (i >= s.length) end();
        if (s[i] !== ':') bad('after object key');
        i++;
        value(); skip();
        if (i >= s.length) end();
        if (s[i] === '}') { i++; return; }
        if (s[i] !== ',') bad('after object key:value pair');
        i++;
      }
    }
    if (c === '[') {
      i++; skip();
      if (i >= s.length) end();
      if (s[i] === ']') { i++; return; }
      for (;;) {
        value(); skip();
        if (i >= s.length) end();
        if (s[i] === ']') { i++; return; }
        if (s[i] !== ',') bad('after array element');
        i++;
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || /[0-9]/.test(c)) return number();
    bad('looking for beginning of value');
  };
  value();
  skip();
  if (i < s.length) bad('after top-level value');
}

/**
 * Go's json.Unmarshal error for `text` decoded into map[string]interface{}, or undefined when
 * it decodes (a JSON object, or null).
 */
export function goJsonObjectError(text: string): string | undefined {
  try {
    scan(text);
  } catch (err) {
    if (err instanceof SyntaxProblem) return err.message;
    throw err;
  }
  const v: unknown = JSON.parse(text);
  if (v === null || (typeof v === 'object' && !Array.isArray(v))) return undefined;
  const type = Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v;
  return `json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
}

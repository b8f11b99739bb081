/**
 * Regular expressions as Kubernetes runs them: RE2 syntax (Perl lookarounds are refused, inline
 * flags work), Go's parse errors, `find` / `findAll` (leftmost-first matches, limits), and linear
 * time on the patterns that make backtracking engines hang.
 */

import { expect } from 'chai';
import { celEnvironment, compile } from '../../../../lib/cel';
import { table } from './table';

describe('cel library: regex', () => {
  table([
    ['"abc".matches("^a.c$")', true],
    ['"xabcx".matches("abc")', true],
    ['"ABC".matches("(?i)^abc$")', true],
    ['matches("abc", "b")', true],
    ['"abc".matches("(")', { error: 'error parsing regexp: missing closing ): `(`' }],
    ['"abc".matches("(?=a)")', { error: 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`' }],
    ['"abc".matches("a**")', { error: 'error parsing regexp: invalid nested repetition operator: `**`' }],
    ['"日本".matches("^..$")', true],
    ['"abc".matches("\\\\Aabc\\\\z")', true],
    ['"123 abc 456".find("[0-9]+")', '123'],
    ['"abc".find("[0-9]+")', ''],
    ['"abc 123".find("[a-z]*")', 'abc'],
    ['"aab".find("a|aa")', 'a'],
    ['"ab".find("(a|ab)(c|bcd)?")', 'a'],
    ['"xyz".find("y$")', ''],
    ['"日本語".find("本.")', '本語'],
    ['"abc".find("(")', { error: 'Illegal regex: error parsing regexp: missing closing ): `(`' }],
    ['"123 abc 456".findAll("[0-9]+")', ['123', '456']],
    ['"123 abc 456".findAll("[0-9]+", 1)', ['123']],
    ['"123 abc 456".findAll("[0-9]+", 0)', []],
    ['"123 abc 456".findAll("[0-9]+", -1)', ['123', '456']],
    ['"abc".findAll("[0-9]+")', []],
    ['"abc".findAll("")', ['', '', '', '']],
    ['"a1b2".findAll("[0-9]*")', ['', '1', '2']],
    ['"one two\\nthree".findAll("(?m)^[a-z]+")', ['one', 'three']],
    ['"foo bar".findAll("\\\\bbar")', ['bar']],
    ['"abc".findAll("(", 2)', { error: 'Illegal regex: error parsing regexp: missing closing ): `(`' }],
  ]);

  it('matches and find in linear time on a pattern that makes backtracking explode', () => {
    const env = celEnvironment({ purpose: 'crd', variables: [{ name: 's', type: 'string' }] });
    const input = `${'a'.repeat(5000)}!`;
    for (const expr of ['s.matches("^(a+)+$")', 's.find("(a|aa)+b")', 's.findAll("(a*)*b").size() == 0']) {
      const c = compile(env, expr);
      if (!c.ok) throw new Error(c.error);
      const started = Date.now();
      const r = c.program.evaluate({ s: input });
      expect(r.ok, expr).to.equal(true);
      expect(Date.now() - started, expr).to.be.lessThan(2000);
    }
  });
});

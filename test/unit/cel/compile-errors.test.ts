/**
 * Compile errors as kube-apiserver prints them (cel-go's format: location, source line, caret), the
 * texts rule authors see in a 422 when a CRD, policy or configuration carries a bad expression; and
 * the result-type check with Kubernetes' wording, replaceable by the caller.
 */

import { expect } from 'chai';
import { celEnvironment, compile, declarationForSchema } from '../../../lib/cel';

describe('cel: compile errors in cel-go format', () => {
  const schema = { type: 'object', properties: { replicas: { type: 'integer' }, name: { type: 'string' }, items: { type: 'array', items: { type: 'string' } } } };
  const decl = declarationForSchema(schema, 'self');
  const env = celEnvironment({ purpose: 'crd', variables: [{ name: 'self', type: decl.type }], types: decl.types });
  const errorOf = (expr: string, resultTypes?: string[]): string => {
    const c = compile(env, expr, { resultTypes });
    expect(c.ok, `${expr} should not compile`).to.equal(false);
    return c.ok ? '' : c.error;
  };

  const table: Array<[string, string]> = [
    ['self.foo == 1', "compilation failed: ERROR: <input>:1:5: undefined field 'foo'\n | self.foo == 1\n | ....^"],
    ['claims + 1', "compilation failed: ERROR: <input>:1:1: undeclared reference to 'claims' (in container '')\n | claims + 1\n | ^"],
    ['self.replicas + "x" == 1', "compilation failed: ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'\n | self.replicas + \"x\" == 1\n | ..............^"],
    ['self.replicas == "3"', "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'\n | self.replicas == \"3\"\n | ..............^"],
    ['self.replicas.startsWith("a")', "compilation failed: ERROR: <input>:1:25: found no matching overload for 'startsWith' applied to 'int.(string)'\n | self.replicas.startsWith(\"a\")\n | ........................^"],
    ['size(self.replicas) > 0', "compilation failed: ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'\n | size(self.replicas) > 0\n | ....^"],
  ];
  for (const [expr, message] of table) {
    it(`reports ${JSON.stringify(expr)} as Kubernetes does`, () => {
      expect(errorOf(expr)).to.equal(message);
    });
  }

  it('points at the line and column of a multi-line expression', () => {
    expect(errorOf('self.name == "a" &&\n  self.bogus')).to.equal("compilation failed: ERROR: <input>:2:7: undefined field 'bogus'\n |   self.bogus\n | ......^");
  });

  it('refuses a constant regex that does not compile (cel-go\'s regex literal check)', () => {
    const c = compile(env, 'self.name.matches("a(b")', { validateRegexLiterals: true });
    expect(c.ok ? '' : c.error).to.equal('compilation failed: ERROR: <input>:1:19: invalid matches argument\n | self.name.matches("a(b")\n | ..................^');
  });

  it('reports a syntax error with its location', () => {
    expect(errorOf('self.replicas +')).to.match(/^compilation failed: ERROR: <input>:1:16: Syntax error: /);
    expect(errorOf('self.')).to.match(/^compilation failed: ERROR: <input>:1:6: Syntax error: /);
  });

  it('refuses a rule that is not bool with Kubernetes\' message, or the caller\'s', () => {
    expect(errorOf('self.replicas', ['bool'])).to.equal('must evaluate to bool');
    const rule = compile(env, 'self.replicas', { resultTypes: ['bool'], resultTypeMessage: 'cel expression must evaluate to a bool' });
    expect(rule).to.deep.equal({ ok: false, error: 'cel expression must evaluate to a bool' });
    const c = compile(env, 'self.replicas', { resultTypes: ['string'], resultTypeMessage: 'messageExpression must evaluate to a string' });
    expect(c).to.deep.equal({ ok: false, error: 'messageExpression must evaluate to a string' });
  });
});

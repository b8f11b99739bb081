/**
 * The compile-time regex check lib/cel's compile can run: a rule with a constant pattern RE2 refuses
 * is reported at the pattern with cel-go's text, so the CRD or policy carrying it is refused when
 * written; valid and non-constant patterns pass.
 */

import { expect } from 'chai';
import { celEnvironment } from '../../../../lib/cel';
import { celErrorText, regexLiteralIssues } from '../../../../lib/cel/libraries/validators';

describe('cel validators: regex literals', () => {
  const env = celEnvironment({ purpose: 'crd', variables: [{ name: 'self', type: 'dyn' }] });
  const issues = (expr: string) => regexLiteralIssues(env.engine.parse(expr).ast);

  it('reports a constant pattern RE2 cannot compile, at the literal, as cel-go prints it', () => {
    const expr = 'self.name.matches("(")';
    const found = issues(expr);
    expect(found).to.deep.equal([{ offset: 18, message: 'invalid matches argument' }]);
    expect(celErrorText(expr, found[0])).to.equal('ERROR: <input>:1:19: invalid matches argument\n | self.name.matches("(")\n | ..................^');
  });

  it('finds patterns inside larger expressions and Perl syntax RE2 refuses', () => {
    expect(issues('self.a.all(x, x.matches("(?=a)")) && self.b.matches("^ok$")').map((i) => i.message)).to.deep.equal(['invalid matches argument']);
  });

  it('accepts valid and non-constant patterns', () => {
    expect(issues('self.name.matches("^[a-z]+$") && self.name.matches(self.pattern)')).to.deep.equal([]);
  });

  it('reports the line and column of a multi-line rule', () => {
    const expr = 'self.a == 1 &&\n  self.b.matches("[z-a]")';
    const [issue] = issues(expr);
    expect(celErrorText(expr, issue).split('\n')[0]).to.equal('ERROR: <input>:2:18: invalid matches argument');
  });
});

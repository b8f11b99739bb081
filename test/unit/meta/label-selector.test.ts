import { expect } from 'chai';
import { isApiError } from '../../../lib/meta/api-errors';
import {
  LabelSelector, isEmpty, labelSelectorFromObject, matchesLabels, parseLabelSelector,
} from '../../../lib/meta/label-selector';

/** The message of the 400 BadRequest that parsing `s` must throw. */
function parseError(s: string): string {
  try {
    parseLabelSelector(s);
  } catch (e) {
    if (!isApiError(e)) throw e;
    expect(e.code).to.equal(400);
    expect(e.reason).to.equal('BadRequest');
    return e.message;
  }
  throw new Error(`expected ${JSON.stringify(s)} to be rejected`);
}

const reqs = (s: string) => parseLabelSelector(s).requirements;

describe('parseLabelSelector', () => {
  it('reads equality, inequality and existence', () => {
    expect(reqs('a=b')).to.deep.equal([{ key: 'a', operator: '=', values: ['b'] }]);
    expect(reqs('a==b')).to.deep.equal([{ key: 'a', operator: '=', values: ['b'] }]);
    expect(reqs('a!=b')).to.deep.equal([{ key: 'a', operator: '!=', values: ['b'] }]);
    expect(reqs('a')).to.deep.equal([{ key: 'a', operator: 'exists', values: [] }]);
    expect(reqs('!a')).to.deep.equal([{ key: 'a', operator: '!', values: [] }]);
  });

  it('reads set requirements with sorted, unique values', () => {
    expect(reqs('env in (prod, dev,prod)')).to.deep.equal([{ key: 'env', operator: 'in', values: ['dev', 'prod'] }]);
    expect(reqs('env notin (b,a)')).to.deep.equal([{ key: 'env', operator: 'notin', values: ['a', 'b'] }]);
  });

  it('joins requirements with commas, tolerating whitespace, sorted by key', () => {
    expect(reqs('  tier != db ,\tapp,  !legacy , env in ( prod ) ')).to.deep.equal([
      { key: 'app', operator: 'exists', values: [] },
      { key: 'env', operator: 'in', values: ['prod'] },
      { key: 'legacy', operator: '!', values: [] },
      { key: 'tier', operator: '!=', values: ['db'] },
    ]);
  });

  it('reads an empty or blank selector as selecting everything', () => {
    expect(reqs('')).to.deep.equal([]);
    expect(reqs('  ')).to.deep.equal([]);
  });

  it('reads missing values as the empty value, as Kubernetes does', () => {
    expect(reqs('a=')).to.deep.equal([{ key: 'a', operator: '=', values: [''] }]);
    expect(reqs('a=,b')[0]).to.deep.equal({ key: 'a', operator: '=', values: [''] });
    expect(reqs('x in (a,,b)')).to.deep.equal([{ key: 'x', operator: 'in', values: ['', 'a', 'b'] }]);
    expect(reqs('x in (a,)')).to.deep.equal([{ key: 'x', operator: 'in', values: ['', 'a'] }]);
    // Kubernetes' parser turns `()` into the set {""}; it is not a parse error there.
    expect(reqs('x notin ()')).to.deep.equal([{ key: 'x', operator: 'notin', values: [''] }]);
  });

  it("treats 'in' and 'notin' as words outside the operator position", () => {
    expect(reqs('in in (in,notin)')).to.deep.equal([{ key: 'in', operator: 'in', values: ['in', 'notin'] }]);
    expect(reqs('notin=in')).to.deep.equal([{ key: 'notin', operator: '=', values: ['in'] }]);
  });

  it('reads Kubernetes\' gt and lt operators', () => {
    expect(reqs('a>1,b<10')).to.deep.equal([
      { key: 'a', operator: 'gt', values: ['1'] },
      { key: 'b', operator: 'lt', values: ['10'] },
    ]);
    expect(parseError('a>b')).to.equal("unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer");
  });

  it('accepts prefixed keys and 63-character names and values', () => {
    const key = `example.com/${'k'.repeat(63)}`;
    expect(reqs(`${key}=${'v'.repeat(63)}`)).to.deep.equal([{ key, operator: '=', values: ['v'.repeat(63)] }]);
  });

  it('rejects bad keys and values', () => {
    expect(parseError('a/b/c=d')).to.match(/^unable to parse requirement: invalid label key "a\/b\/c": a qualified name must consist of/);
    expect(parseError(`${'k'.repeat(64)}=v`)).to.equal(
      `unable to parse requirement: invalid label key "${'k'.repeat(64)}": name part must be no more than 63 characters`);
    expect(parseError(`a=${'v'.repeat(64)}`)).to.equal(
      `unable to parse requirement: invalid label value: "${'v'.repeat(64)}": at key: "a": must be no more than 63 characters`);
    expect(parseError('a in (ok,-bad)')).to.match(/^unable to parse requirement: invalid label value: "-bad": at key: "a": a valid label must be/);
  });

  it('names the unexpected token', () => {
    const cases: Array<[string, string]> = [
      ['a in (x', "unable to parse requirement: found '', expected: ',' or ')'"],
      ['a in (x y)', "unable to parse requirement: found 'y', expected: ',' or ')'"],
      ['a in x', "unable to parse requirement: found 'x' expected: '('"],
      ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
      ['a in (x,', "unable to parse requirement: found '', expected: ',', or identifier"],
      ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
      ['a=(b)', "unable to parse requirement: found '(', expected: identifier"],
      ['!', "unable to parse requirement: found '', expected: identifier"],
      ['a=b,', "found '', expected: identifier after ','"],
      [',a', "found ',', expected: !, identifier, or 'end of string'"],
      ['a=b c', "found 'c', expected: ',' or 'end of string'"],
      ['!a=b', "found '=', expected: ',' or 'end of string'"],
      ['a=b=c', "found '=', expected: ',' or 'end of string'"],
    ];
    for (const [input, message] of cases) expect(parseError(input), input).to.equal(message);
  });
});

describe('matchesLabels', () => {
  const labels = { env: 'prod', tier: 'web', n: '5', empty: '' };
  const cases: Array<[string, boolean]> = [
    ['', true],
    ['env=prod', true],
    ['env=dev', false],
    ['env!=dev', true],
    ['env!=prod', false],
    ['missing!=x', true],
    ['missing=x', false],
    ['env in (dev,prod)', true],
    ['env in (dev,qa)', false],
    ['missing in (a)', false],
    ['env notin (dev)', true],
    ['env notin (prod)', false],
    ['missing notin (a)', true],
    ['env', true],
    ['missing', false],
    ['!missing', true],
    ['!env', false],
    ['empty=', true],
    ['missing=', false],
    ['n>4', true],
    ['n>5', false],
    ['n<6', true],
    ['env>1', false],
    ['missing<1', false],
    ['env=prod,tier=web', true],
    ['env=prod,tier=db', false],
  ];
  for (const [selector, expected] of cases) {
    it(`${JSON.stringify(selector)} -> ${expected}`, () => {
      expect(matchesLabels(parseLabelSelector(selector), labels)).to.equal(expected);
    });
  }

  it('treats absent labels as an empty set', () => {
    expect(matchesLabels(parseLabelSelector('a!=b,!c,d notin (e)'), undefined)).to.equal(true);
    expect(matchesLabels(parseLabelSelector('a'), undefined)).to.equal(false);
    expect(matchesLabels(parseLabelSelector(''), undefined)).to.equal(true);
  });

  it('does not see inherited properties as labels', () => {
    expect(matchesLabels(parseLabelSelector('toString'), {})).to.equal(false);
  });
});

describe('isEmpty', () => {
  it('is true only without requirements', () => {
    expect(isEmpty(parseLabelSelector(''))).to.equal(true);
    expect(isEmpty(parseLabelSelector('a'))).to.equal(false);
  });
});

describe('labelSelectorFromObject', () => {
  it('converts matchLabels and matchExpressions', () => {
    const res = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev'] },
        { key: 'tier', operator: 'NotIn', values: ['db'] },
        { key: 'track', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist', values: [] },
      ],
    });
    expect(res.errors).to.deep.equal([]);
    const sel = res.selector as LabelSelector;
    expect(sel.requirements).to.deep.equal([
      { key: 'app', operator: '=', values: ['web'] },
      { key: 'env', operator: 'in', values: ['dev', 'prod'] },
      { key: 'legacy', operator: '!', values: [] },
      { key: 'tier', operator: 'notin', values: ['db'] },
      { key: 'track', operator: 'exists', values: [] },
    ]);
    expect(matchesLabels(sel, { app: 'web', env: 'dev', track: 'a' })).to.equal(true);
    expect(matchesLabels(sel, { app: 'web', env: 'dev', track: 'a', legacy: 'y' })).to.equal(false);
  });

  it('turns an empty selector into one that selects everything', () => {
    const res = labelSelectorFromObject({});
    expect(res).to.deep.equal({ selector: { requirements: [] }, errors: [] });
  });

  it('reports bad requirements as Kubernetes does, under the given path', () => {
    const res = labelSelectorFromObject({
      matchLabels: { 'bad key': 'v' },
      matchExpressions: [
        { key: 'a', operator: 'In' },
        { key: 'b', operator: 'Exists', values: ['x'] },
        { key: 'c', operator: 'Equals', values: ['x'] },
        { key: 'd', operator: 'In', values: ['-x'] },
      ],
    }, 'spec.selector');
    expect(res.selector).to.equal(undefined);
    expect(res.errors.map((e) => [e.type, e.field])).to.deep.equal([
      ['FieldValueInvalid', 'spec.selector.matchLabels'],
      ['FieldValueRequired', 'spec.selector.matchExpressions[0].values'],
      ['FieldValueForbidden', 'spec.selector.matchExpressions[1].values'],
      ['FieldValueInvalid', 'spec.selector.matchExpressions[2].operator'],
      ['FieldValueInvalid', 'spec.selector.matchExpressions[3].values[0]'],
    ]);
    expect(res.errors[1].message).to.equal("Required value: must be specified when `operator` is 'In' or 'NotIn'");
    expect(res.errors[2].message).to.equal("Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    expect(res.errors[3].message).to.equal('Invalid value: "Equals": not a valid selector operator');
  });

  it('reports wrong JSON types', () => {
    expect(labelSelectorFromObject('x').errors[0]).to.include({ type: 'FieldValueTypeInvalid', field: 'selector' });
    const res = labelSelectorFromObject({ matchLabels: { a: 1 }, matchExpressions: [{ key: 7, operator: 'Exists' }, 'x'] });
    expect(res.errors.map((e) => [e.type, e.field])).to.deep.equal([
      ['FieldValueTypeInvalid', 'selector.matchLabels[a]'],
      ['FieldValueTypeInvalid', 'selector.matchExpressions[0].key'],
      ['FieldValueTypeInvalid', 'selector.matchExpressions[1]'],
    ]);
  });
});

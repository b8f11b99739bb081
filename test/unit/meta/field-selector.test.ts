import { expect } from 'chai';
import { isApiError } from '../../../lib/meta/api-errors';
import { matchesFields, parseFieldSelector, requirementFor } from '../../../lib/meta/field-selector';

const ALLOWED = ['metadata.name', 'metadata.namespace', 'spec.nodeName'];
const parse = (s: string) => parseFieldSelector(s, ALLOWED);

/** The message of the 400 BadRequest that parsing `s` must throw. */
function parseError(s: string): string {
  try {
    parse(s);
  } catch (e) {
    if (!isApiError(e)) throw e;
    expect(e.code).to.equal(400);
    expect(e.reason).to.equal('BadRequest');
    return e.message;
  }
  throw new Error(`expected ${JSON.stringify(s)} to be rejected`);
}

describe('parseFieldSelector', () => {
  it('reads =, == and != terms', () => {
    expect(parse('metadata.name=foo').requirements).to.deep.equal([{ field: 'metadata.name', operator: '=', value: 'foo' }]);
    expect(parse('metadata.name==foo').requirements).to.deep.equal([{ field: 'metadata.name', operator: '=', value: 'foo' }]);
    expect(parse('metadata.name!=foo').requirements).to.deep.equal([{ field: 'metadata.name', operator: '!=', value: 'foo' }]);
  });

  it('joins terms with commas and skips empty ones', () => {
    expect(parse('spec.nodeName=n1,,metadata.namespace!=kube-system').requirements).to.deep.equal([
      { field: 'metadata.namespace', operator: '!=', value: 'kube-system' },
      { field: 'spec.nodeName', operator: '=', value: 'n1' },
    ]);
    expect(parse('').requirements).to.deep.equal([]);
  });

  it('reads an empty value', () => {
    expect(parse('spec.nodeName=').requirements).to.deep.equal([{ field: 'spec.nodeName', operator: '=', value: '' }]);
  });

  it('unescapes \\, \\= and \\\\ in values', () => {
    expect(parse('metadata.name=a\\,b').requirements[0].value).to.equal('a,b');
    expect(parse('metadata.name=a\\=b').requirements[0].value).to.equal('a=b');
    expect(parse('metadata.name=a\\\\b').requirements[0].value).to.equal('a\\b');
    expect(parse('metadata.name=a\\,b,spec.nodeName=c').requirements).to.deep.equal([
      { field: 'metadata.name', operator: '=', value: 'a,b' },
      { field: 'spec.nodeName', operator: '=', value: 'c' },
    ]);
  });

  it("rejects an unknown field with Kubernetes' message", () => {
    expect(parseError('spec.foo=x')).to.equal('field label not supported: spec.foo');
    // No trimming: the field name includes the blank.
    expect(parseError(' metadata.name=x')).to.equal('field label not supported:  metadata.name');
  });

  it('rejects a term without an operator', () => {
    expect(parseError('metadata.name')).to.equal("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    // Syntax is checked before field support.
    expect(parseError('bogus=1,nofield')).to.equal("invalid selector: 'bogus=1,nofield'; can't understand 'nofield'");
  });

  it('rejects bad escapes and unescaped specials in values', () => {
    expect(parseError('metadata.name=a=b')).to.equal('invalid field selector: unescaped character in value: =');
    expect(parseError('metadata.name!==b')).to.equal('invalid field selector: unescaped character in value: =');
    expect(parseError('metadata.name=a\\b')).to.equal('invalid field selector: invalid escape sequence: \\b');
    expect(parseError('metadata.name=a\\')).to.equal('invalid field selector: invalid escape sequence: \\');
  });
});

describe('matchesFields', () => {
  const fields = { 'metadata.name': 'web', 'metadata.namespace': 'default' };

  it('requires every term to hold', () => {
    expect(matchesFields(parse('metadata.name=web'), fields)).to.equal(true);
    expect(matchesFields(parse('metadata.name=db'), fields)).to.equal(false);
    expect(matchesFields(parse('metadata.name!=db'), fields)).to.equal(true);
    expect(matchesFields(parse('metadata.name!=web'), fields)).to.equal(false);
    expect(matchesFields(parse('metadata.name=web,metadata.namespace=default'), fields)).to.equal(true);
    expect(matchesFields(parse('metadata.name=web,metadata.namespace=other'), fields)).to.equal(false);
    expect(matchesFields(parse(''), fields)).to.equal(true);
  });

  it('reads a missing field as the empty string', () => {
    expect(matchesFields(parse('spec.nodeName='), fields)).to.equal(true);
    expect(matchesFields(parse('spec.nodeName=n1'), fields)).to.equal(false);
    expect(matchesFields(parse('spec.nodeName!=n1'), fields)).to.equal(true);
  });
});

describe('requirementFor', () => {
  it('returns the value an = term demands', () => {
    expect(requirementFor(parse('metadata.name=web'), 'metadata.name')).to.equal('web');
    expect(requirementFor(parse('metadata.namespace==ns,metadata.name!=x'), 'metadata.namespace')).to.equal('ns');
    expect(requirementFor(parse('spec.nodeName='), 'spec.nodeName')).to.equal('');
  });

  it('returns undefined without an = term on the field', () => {
    expect(requirementFor(parse('metadata.name!=web'), 'metadata.name')).to.equal(undefined);
    expect(requirementFor(parse('metadata.namespace=ns'), 'metadata.name')).to.equal(undefined);
    expect(requirementFor(parse(''), 'metadata.name')).to.equal(undefined);
  });
});

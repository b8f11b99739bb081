import { expect } from 'chai';
import { JsonPathError, findResults, parseJsonPath } from '../../../../lib/apiextensions/serving/jsonpath';

const obj = {
  metadata: { name: 'x', labels: { 'app.kubernetes.io/name': 'web', app: 'a' } },
  spec: { replicas: 3, list: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], map: { k1: 1 }, nothing: null },
};
const find = (p: string, data: unknown = obj) => findResults(parseJsonPath(p), data);

describe('jsonpath (client-go JSONPath subset of printer columns)', () => {
  it('follows fields, array indexes (negative from the end), slices and [*]', () => {
    expect(find('.spec.replicas')).to.deep.equal([3]);
    expect(find('.spec.list[0].name')).to.deep.equal(['a']);
    expect(find('.spec.list[-1].name')).to.deep.equal(['c']);
    expect(find('.spec.list[*].name')).to.deep.equal(['a', 'b', 'c']);
    expect(find('.spec.list[0:2].name')).to.deep.equal(['a', 'b']);
    expect(find('.spec.list[::2].name')).to.deep.equal(['a', 'c']);
    expect(find('.spec.map.*')).to.deep.equal([1]);
  });

  it("reads ['key'] as .key, so a dotted key still splits (client-go's behaviour); \\. keeps a dot in a name", () => {
    expect(find(".metadata.labels['app']")).to.deep.equal(['a']);
    expect(find(".metadata.labels['app.kubernetes.io/name']")).to.deep.equal([]);
    expect(find('.metadata.labels.app\\.kubernetes\\.io/name')).to.deep.equal(['web']);
  });

  it('gives no result for missing keys and for fields of non-objects; a null value is a result', () => {
    expect(find('.spec.missing')).to.deep.equal([]);
    expect(find('.spec.replicas.deeper')).to.deep.equal([]);
    expect(find('.spec.list.name')).to.deep.equal([]);
    expect(find('.spec.nothing')).to.deep.equal([null]);
    expect(find('.spec.nothing.x')).to.deep.equal([]);
  });

  it('fails like client-go on an index out of range or an index into a non-list', () => {
    expect(() => find('.spec.list[3]')).to.throw(JsonPathError, 'array index out of bounds: index 3, length 3');
    expect(() => find('.spec.list[-4]')).to.throw(JsonPathError, 'array index out of bounds: index -1, length 3');
    expect(() => find('.spec.map[0]')).to.throw(JsonPathError, 'map[string]interface {} is not array or slice');
    expect(() => find('.spec.map[*]')).to.throw(JsonPathError, 'is not array or slice');
    expect(find('.spec.list[1:1]')).to.deep.equal([]);
  });

  it('refuses what columns do not use and what does not parse', () => {
    expect(() => parseJsonPath('.spec.list[?(@.name=="a")]')).to.throw(JsonPathError);
    expect(() => parseJsonPath('..name')).to.throw(JsonPathError);
    expect(() => parseJsonPath('.spec.list[0,1]')).to.throw(JsonPathError);
    expect(() => parseJsonPath('.spec.list[x]')).to.throw(JsonPathError, 'invalid array index x');
    expect(() => parseJsonPath('.spec.list[0')).to.throw(JsonPathError, 'unterminated array');
    expect(() => parseJsonPath('spec')).to.throw(JsonPathError, 'unrecognized character');
  });
});

import { expect } from 'chai';
import { applyMergePatch } from '../../../lib/fieldmanager/merge-patch';

/** RFC 7386 Appendix A: ORIGINAL, PATCH, RESULT, row by row as published. */
const rfc7386AppendixA: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [['a', 'b'], ['c', 'd'], ['c', 'd']],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe('applyMergePatch', () => {
  describe('RFC 7386 Appendix A', () => {
    rfc7386AppendixA.forEach(([original, patch, result], i) => {
      it(`row ${i + 1}: ${JSON.stringify(original)} + ${JSON.stringify(patch)}`, () => {
        const before = JSON.stringify([original, patch]);
        expect(applyMergePatch(original, patch)).to.deep.equal(result);
        expect(JSON.stringify([original, patch])).to.equal(before);
      });
    });
  });

  it('sets and removes labels as kubectl label sends them', () => {
    const cm = { metadata: { name: 'x', labels: { a: '1', b: '2' } }, data: { k: 'v' } };
    expect(applyMergePatch(cm, { metadata: { labels: { a: null, c: '3' } } }))
      .to.deep.equal({ metadata: { name: 'x', labels: { b: '2', c: '3' } }, data: { k: 'v' } });
  });

  it('shares no objects with the document or the patch', () => {
    const doc = { a: { b: [1] } };
    const patch = { c: { d: [2] } };
    const out = applyMergePatch(doc, patch) as { a: { b: number[] }; c: { d: number[] } };
    out.a.b.push(9);
    out.c.d.push(9);
    expect(doc).to.deep.equal({ a: { b: [1] } });
    expect(patch).to.deep.equal({ c: { d: [2] } });
  });

  it('keeps a member named __proto__ an ordinary member', () => {
    const out = applyMergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.keys(out)).to.deep.equal(['__proto__']);
    expect((out as { polluted?: boolean }).polluted).to.equal(undefined);
  });
});

import { expect } from 'chai';
import { isApiError } from '../../../lib/meta/api-errors';
import { applyJsonPatch, maxJsonPatchOperations } from '../../../lib/fieldmanager/json-patch';

/** RFC 6902 Appendix A, as published: target document, patch, and result or error. */
interface Vector { section: string; title: string; doc: unknown; patch: unknown; result?: unknown; error?: boolean }

const rfc6902AppendixA: Vector[] = [
  {
    section: 'A.1', title: 'Adding an Object Member',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux' }],
    result: { baz: 'qux', foo: 'bar' },
  },
  {
    section: 'A.2', title: 'Adding an Array Element',
    doc: { foo: ['bar', 'baz'] },
    patch: [{ op: 'add', path: '/foo/1', value: 'qux' }],
    result: { foo: ['bar', 'qux', 'baz'] },
  },
  {
    section: 'A.3', title: 'Removing an Object Member',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'remove', path: '/baz' }],
    result: { foo: 'bar' },
  },
  {
    section: 'A.4', title: 'Removing an Array Element',
    doc: { foo: ['bar', 'qux', 'baz'] },
    patch: [{ op: 'remove', path: '/foo/1' }],
    result: { foo: ['bar', 'baz'] },
  },
  {
    section: 'A.5', title: 'Replacing a Value',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'replace', path: '/baz', value: 'boo' }],
    result: { baz: 'boo', foo: 'bar' },
  },
  {
    section: 'A.6', title: 'Moving a Value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    result: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  {
    section: 'A.7', title: 'Moving an Array Element',
    doc: { foo: ['all', 'grass', 'cows', 'eat'] },
    patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    result: { foo: ['all', 'cows', 'eat', 'grass'] },
  },
  {
    section: 'A.8', title: 'Testing a Value: Success',
    doc: { baz: 'qux', foo: ['a', 2, 'c'] },
    patch: [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }],
    result: { baz: 'qux', foo: ['a', 2, 'c'] },
  },
  {
    section: 'A.9', title: 'Testing a Value: Error',
    doc: { baz: 'qux' },
    patch: [{ op: 'test', path: '/baz', value: 'bar' }],
    error: true,
  },
  {
    section: 'A.10', title: 'Adding a Nested Member Object',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    result: { foo: 'bar', child: { grandchild: {} } },
  },
  {
    section: 'A.11', title: 'Ignoring Unrecognized Elements',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
    result: { foo: 'bar', baz: 'qux' },
  },
  {
    section: 'A.12', title: 'Adding to a Nonexistent Target',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz/bat', value: 'qux' }],
    error: true,
  },
  {
    // The RFC's document repeats "op"; a JSON decoder keeps the last one, so it must not act as "add".
    section: 'A.13', title: 'Invalid JSON Patch Document',
    doc: { foo: 'bar' },
    patch: JSON.parse('[{ "op": "add", "path": "/baz", "value": "qux", "op": "remove" }]'),
    error: true,
  },
  {
    section: 'A.14', title: '~ Escape Ordering',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: 10 }],
    result: { '/': 9, '~1': 10 },
  },
  {
    section: 'A.15', title: 'Comparing Strings and Numbers',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: '10' }],
    error: true,
  },
  {
    section: 'A.16', title: 'Adding an Array Value',
    doc: { foo: ['bar'] },
    patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
    result: { foo: ['bar', ['abc', 'def']] },
  },
];

/** Runs the patch and returns the ApiError it must throw. */
function failure(doc: unknown, patch: unknown): { code: number; reason: string; message: string } {
  try {
    applyJsonPatch(doc, patch);
  } catch (e) {
    if (!isApiError(e)) throw e;
    return { code: e.code, reason: e.reason, message: e.message };
  }
  throw new Error(`expected ${JSON.stringify(patch)} to be rejected`);
}

describe('applyJsonPatch', () => {
  describe('RFC 6902 Appendix A', () => {
    for (const v of rfc6902AppendixA) {
      it(`${v.section} ${v.title}`, () => {
        const before = JSON.stringify(v.doc);
        if (v.error) {
          expect(failure(v.doc, v.patch).code).to.equal(422);
        } else {
          expect(applyJsonPatch(v.doc, v.patch)).to.deep.equal(v.result);
        }
        expect(JSON.stringify(v.doc)).to.equal(before);
      });
    }
  });

  describe('operations', () => {
    it('replaces or adds the whole document with the empty pointer', () => {
      expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }])).to.deep.equal({ b: 2 });
      expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '', value: [1] }])).to.deep.equal([1]);
    });

    it('adds over an existing member, and adds null as a value', () => {
      expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/a', value: 2 }])).to.deep.equal({ a: 2 });
      expect(applyJsonPatch({}, [{ op: 'add', path: '/a', value: null }])).to.deep.equal({ a: null });
    });

    it('inserts at the end of an array by index equal to its length', () => {
      expect(applyJsonPatch({ a: [1] }, [{ op: 'add', path: '/a/1', value: 2 }])).to.deep.equal({ a: [1, 2] });
    });

    it('reads member names with "/" and "~" through ~1 and ~0', () => {
      const doc = { metadata: { labels: { 'app.kubernetes.io/name': 'x', 'a~b': 'y' } } };
      expect(applyJsonPatch(doc, [
        { op: 'replace', path: '/metadata/labels/app.kubernetes.io~1name', value: 'z' },
        { op: 'remove', path: '/metadata/labels/a~0b' },
      ])).to.deep.equal({ metadata: { labels: { 'app.kubernetes.io/name': 'z' } } });
    });

    it('copies deeply: a later change to the copy leaves the source alone', () => {
      const out = applyJsonPatch({ a: { x: [1] } }, [
        { op: 'copy', from: '/a', path: '/b' },
        { op: 'add', path: '/b/x/-', value: 2 },
      ]);
      expect(out).to.deep.equal({ a: { x: [1] }, b: { x: [1, 2] } });
    });

    it('moves a value to the path it came from as a no-op', () => {
      expect(applyJsonPatch({ a: [1, 2] }, [{ op: 'move', from: '/a/0', path: '/a/0' }])).to.deep.equal({ a: [1, 2] });
    });

    it('tests objects regardless of member order and numbers by value', () => {
      const doc = { data: { a: 1, b: { c: [1, 2] } } };
      expect(applyJsonPatch(doc, [
        { op: 'test', path: '/data', value: { b: { c: [1, 2] }, a: 1.0 } },
        { op: 'test', path: '/data/b/c/1', value: 2 },
      ])).to.deep.equal(doc);
    });

    it('shares no objects with the patch', () => {
      const value = { x: [1] };
      const out = applyJsonPatch({}, [{ op: 'add', path: '/a', value }]) as { a: { x: number[] } };
      out.a.x.push(2);
      expect(value).to.deep.equal({ x: [1] });
    });

    it('keeps a member named __proto__ an ordinary member', () => {
      const out = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<string, unknown>;
      expect(Object.keys(out)).to.deep.equal(['__proto__']);
      expect((out as { polluted?: boolean }).polluted).to.equal(undefined);
      expect(({} as { polluted?: boolean }).polluted).to.equal(undefined);
    });

    it('applies nothing when a later operation fails', () => {
      const doc = { data: { a: '1' } };
      const err = failure(doc, [
        { op: 'replace', path: '/data/a', value: '2' },
        { op: 'test', path: '/data/a', value: '1' },
      ]);
      expect(err.code).to.equal(422);
      expect(doc).to.deep.equal({ data: { a: '1' } });
    });
  });

  describe('malformed patch documents are 400 BadRequest', () => {
    const cases: [string, unknown][] = [
      ['a patch that is not an array', { op: 'add', path: '/a', value: 1 }],
      ['an operation that is not an object', [null]],
      ['a missing op', [{ path: '/a', value: 1 }]],
      ['an unknown op', [{ op: 'upsert', path: '/a', value: 1 }]],
      ['a path that is not a string', [{ op: 'remove', path: 1 }]],
      ['a missing path', [{ op: 'remove' }]],
      ['a path without a leading slash', [{ op: 'remove', path: 'a' }]],
      ['an invalid ~ escape', [{ op: 'remove', path: '/a~2' }]],
      ['add without value', [{ op: 'add', path: '/a' }]],
      ['replace without value', [{ op: 'replace', path: '/a' }]],
      ['test without value', [{ op: 'test', path: '/a' }]],
      ['move without from', [{ op: 'move', path: '/a' }]],
      ['copy with a from that is not a pointer', [{ op: 'copy', from: 'a', path: '/b' }]],
    ];
    for (const [what, patch] of cases) {
      it(what, () => {
        const err = failure({ a: 1 }, patch);
        expect(err.code).to.equal(400);
        expect(err.reason).to.equal('BadRequest');
      });
    }

    it('checks every operation before applying any', () => {
      const err = failure({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }, { op: 'nope', path: '/a' }]);
      expect(err.code).to.equal(400);
      expect(err.message).to.include('json patch operation 1');
    });
  });

  describe('operations that cannot apply are 422 Invalid', () => {
    const cases: [string, unknown, unknown, string][] = [
      ['remove of a missing member', { data: {} }, [{ op: 'remove', path: '/data/x' }], 'remove operation does not apply: doc is missing path: /data/x'],
      ['replace of a missing member', { data: {} }, [{ op: 'replace', path: '/data/x', value: 'y' }], 'replace operation does not apply: doc is missing key: /data/x'],
      ['a failed test', { data: { a: '1' } }, [{ op: 'test', path: '/data/a', value: '2' }], 'testing value /data/a failed'],
      ['a test of a missing member', { data: {} }, [{ op: 'test', path: '/data/a', value: null }], 'testing value /data/a failed'],
      ['add past the end of an array', { a: [1, 2] }, [{ op: 'add', path: '/a/3', value: 0 }], 'array index 3 is out of range at /a/3'],
      ['remove of "-"', { a: [1] }, [{ op: 'remove', path: '/a/-' }], 'doc is missing path: /a/-'],
      ['an index with a leading zero', { a: [1, 2] }, [{ op: 'replace', path: '/a/01', value: 0 }], 'doc is missing key: /a/01'],
      ['a member name used on an array', { a: [1] }, [{ op: 'add', path: '/a/x', value: 0 }], 'array index x is out of range'],
      ['add under a scalar', { a: 1 }, [{ op: 'add', path: '/a/b', value: 0 }], 'add operation does not apply: doc is missing path: /a/b'],
      ['move of a missing member', { a: {} }, [{ op: 'move', from: '/a/x', path: '/b' }], 'move operation does not apply: doc is missing from path: /a/x'],
      ['move into its own child', { a: { b: {} } }, [{ op: 'move', from: '/a', path: '/a/b/c' }], 'cannot move /a into its own child /a/b/c'],
      ['copy of a missing member', {}, [{ op: 'copy', from: '/x', path: '/y' }], 'copy operation does not apply: doc is missing from path: /x'],
      ['remove of the whole document', { a: 1 }, [{ op: 'remove', path: '' }], 'the whole document cannot be removed'],
    ];
    for (const [what, doc, patch, detail] of cases) {
      it(what, () => {
        const err = failure(doc, patch);
        expect(err.code).to.equal(422);
        expect(err.reason).to.equal('Invalid');
        expect(err.message).to.include(detail);
        expect(err.message.startsWith('the server rejected our request due to an error in our request: ')).to.equal(true);
      });
    }
  });

  it(`refuses more than ${maxJsonPatchOperations} operations with 413`, () => {
    const ops = Array.from({ length: maxJsonPatchOperations + 1 }, () => ({ op: 'test', path: '', value: {} }));
    const err = failure({}, ops);
    expect(err.code).to.equal(413);
    expect(err.reason).to.equal('RequestEntityTooLarge');
    expect(err.message).to.include(`got ${maxJsonPatchOperations + 1}`);
    expect(applyJsonPatch({}, ops.slice(1))).to.deep.equal({});
  });
});

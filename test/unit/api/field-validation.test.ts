/** Field validation's two checks on a body: keys given twice (from the raw JSON) and fields the schema lacks. */
import { expect } from 'chai';
import { dropUnknownFields, duplicateJsonFields, unknownFields } from '../../../lib/api/field-validation';
import { Schema } from '../../../lib/scheme/schema';

describe('field validation', () => {
  describe('duplicateJsonFields', () => {
    it('finds keys given twice at any depth, with their paths', () => {
      const text = '{"a":1,"b":{"c":[{"d":1,"d":2},{"e":"x"}],"c":null},"a":3}';
      expect(duplicateJsonFields(text)).to.deep.equal(['b.c[0].d', 'b.c', 'a']);
    });

    it('reads keys with escapes as JSON does: "\\u0061" is the key a', () => {
      expect(duplicateJsonFields('{"a":1,"\\u0061":2}')).to.deep.equal(['a']);
      expect(duplicateJsonFields('{"a\\"b":1,"a\\"b":2}')).to.deep.equal(['a"b']);
    });

    it('is not fooled by quotes, braces and backslashes inside string values', () => {
      const text = JSON.stringify({ data: { x: 'q"uote } ] , "x":1', y: 'ends with backslash \\', z: '\\"' }, x: 1 });
      expect(duplicateJsonFields(text)).to.deep.equal([]);
      expect(duplicateJsonFields(`{"k":"\\\\","k":"\\\\\\""}`)).to.deep.equal(['k']);
    });

    it('handles whitespace, empty objects and arrays, and scalars', () => {
      expect(duplicateJsonFields(' {\n "a" : { } ,\t"b":[ ],"c":[1, true, null, -2.5e3],"a":{}}\r\n')).to.deep.equal(['a']);
      expect(duplicateJsonFields('[{"a":1,"a":1}]')).to.deep.equal(['[0].a']);
      expect(duplicateJsonFields('"just a string"')).to.deep.equal([]);
    });
  });

  describe('unknownFields and dropUnknownFields', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } } },
        items: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    } as Schema;
    const body = {
      metadata: { name: 'a', labels: { any: 'x' }, bogus: 1 },
      items: [{ key: 'k', extra: true }, { key: 'l' }],
      free: { anything: { goes: 1 } },
      top: 'unknown',
    };

    it('reports every field the schema does not define, by path', () => {
      expect(unknownFields(body, schema)).to.deep.equal(['metadata.bogus', 'items[0].extra', 'top']);
      expect(unknownFields({ metadata: { name: 'a' } }, schema)).to.deep.equal([]);
    });

    it('drops them; with an empty report the body is returned as is', () => {
      expect(dropUnknownFields(body, schema)).to.deep.equal({
        metadata: { name: 'a', labels: { any: 'x' } }, items: [{ key: 'k' }, { key: 'l' }], free: { anything: { goes: 1 } },
      });
      const clean = { metadata: { name: 'a' } };
      expect(dropUnknownFields(clean, schema, [])).to.equal(clean);
    });

    it('under x-kubernetes-preserve-unknown-fields keeps unknown keys but checks declared ones (an embedded resource\'s metadata)', () => {
      const embedded = {
        type: 'object', properties: {
          template: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } } } },
        },
      } as Schema;
      const obj = { template: { kind: 'ConfigMap', data: { a: 'b' }, metadata: { name: 'n', bogus: 1 } } };
      expect(unknownFields(obj, embedded)).to.deep.equal(['template.metadata.bogus']);
      expect(dropUnknownFields(obj, embedded)).to.deep.equal({ template: { kind: 'ConfigMap', data: { a: 'b' }, metadata: { name: 'n' } } });
    });
  });
});

import { expect } from 'chai';
import { goJsonObjectError } from '../../../../../lib/registry/core/secrets/go-json-error';

describe('goJsonObjectError', () => {
  const cases: Array<[string, string | undefined]> = [
    ['{"auths":{"r":{"auth":"eDp5"}}}', undefined],
    [' {} ', undefined],
    ['null', undefined],
    ['', 'unexpected end of JSON input'],
    ['{"auths":', 'unexpected end of JSON input'],
    ['{"auths":x}', "invalid character 'x' looking for beginning of value"],
    ['{auths:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a":01}', "invalid character '1' after object key:value pair"],
    ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['[1]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['"s"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['true', 'json: cannot unmarshal bool into Go value of type map[string]interface {}'],
    ['12', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
  ];
  for (const [text, expected] of cases) {
    it(`${JSON.stringify(text)} -> ${expected ?? 'ok'}`, () => {
      expect(goJsonObjectError(text)).to.equal(expected);
    });
  }
});

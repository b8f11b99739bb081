import { expect } from 'chai';
import { CsvError, ERR_BARE_QUOTE, ERR_QUOTE, parseCsv } from '../../../lib/authn/csv';

/**
 * Vectors of Go's encoding/csv reader tests (the options kube-apiserver uses: comma, no comment
 * character, strict quotes, FieldsPerRecord = -1). In the inputs `¶` separates records (it is not
 * part of the text) and `∑` marks where the error is reported.
 */
interface Vector { name: string; input: string; output?: string[][]; error?: string }

const GO_VECTORS: Vector[] = [
  { name: 'Simple', input: 'a,b,c\n', output: [['a', 'b', 'c']] },
  { name: 'CRLF', input: 'a,b\r\n¶c,d\r\n', output: [['a', 'b'], ['c', 'd']] },
  { name: 'BareCR', input: 'a,b\rc,d\r\n', output: [['a', 'b\rc', 'd']] },
  {
    name: 'RFC4180test',
    input: '#field1,field2,field3\n¶"aaa","bb\nb","ccc"\n¶"a,a","b""bb","ccc"\n¶zzz,yyy,xxx\n',
    output: [['#field1', 'field2', 'field3'], ['aaa', 'bb\nb', 'ccc'], ['a,a', 'b"bb', 'ccc'], ['zzz', 'yyy', 'xxx']],
  },
  { name: 'NoEOLTest', input: 'a,b,c', output: [['a', 'b', 'c']] },
  { name: 'MultiLine', input: '"two\nline","one line","three\nline\nfield"', output: [['two\nline', 'one line', 'three\nline\nfield']] },
  { name: 'BlankLine', input: 'a,b,c\n\n¶d,e,f\n\n', output: [['a', 'b', 'c'], ['d', 'e', 'f']] },
  { name: 'LeadingSpace', input: ' a,  b,   c\n', output: [[' a', '  b', '   c']] },
  { name: 'NoComment', input: '#1,2,3\n¶a,b,c', output: [['#1', '2', '3'], ['a', 'b', 'c']] },
  { name: 'BadDoubleQuotes', input: 'a∑""b,c', error: ERR_BARE_QUOTE },
  { name: 'BadBareQuote', input: 'a ∑"word","b"', error: ERR_BARE_QUOTE },
  { name: 'BadTrailingQuote', input: '"a word",b∑"', error: ERR_BARE_QUOTE },
  { name: 'ExtraneousQuote', input: '"a ∑"word","b"', error: ERR_QUOTE },
  { name: 'FieldCount', input: 'a,b,c\n¶d,e', output: [['a', 'b', 'c'], ['d', 'e']] },
  { name: 'TrailingCommaEOF', input: 'a,b,c,', output: [['a', 'b', 'c', '']] },
  { name: 'TrailingCommaEOL', input: 'a,b,c,\n', output: [['a', 'b', 'c', '']] },
  { name: 'NotTrailingComma3', input: 'a,b,c, \n', output: [['a', 'b', 'c', ' ']] },
  {
    name: 'CommaFieldTest',
    input: 'x,y,z,w\n¶x,y,z,\n¶x,y,,\n¶x,,,\n¶,,,\n¶"x","y","z","w"\n¶"x","y","z",""\n¶"x","y","",""\n¶"x","","",""\n¶"","","",""\n',
    output: [
      ['x', 'y', 'z', 'w'], ['x', 'y', 'z', ''], ['x', 'y', '', ''], ['x', '', '', ''], ['', '', '', ''],
      ['x', 'y', 'z', 'w'], ['x', 'y', 'z', ''], ['x', 'y', '', ''], ['x', '', '', ''], ['', '', '', ''],
    ],
  },
  { name: 'StartLine1', input: 'a,"b\nc∑"d,e', error: ERR_QUOTE },
  { name: 'StartLine2', input: 'a,b\n¶"d\n\n,e∑', error: ERR_QUOTE },
  { name: 'CRLFInQuotedField', input: 'A,"Hello\r\nHi",B\r\n', output: [['A', 'Hello\nHi', 'B']] },
  { name: 'TrailingCR', input: 'field1,field2\r', output: [['field1', 'field2']] },
  { name: 'QuotedTrailingCR', input: '"field"\r', output: [['field']] },
  { name: 'QuotedTrailingCRCR', input: '"field∑"\r\r', error: ERR_QUOTE },
  { name: 'FieldCR', input: 'field\rfield\r', output: [['field\rfield']] },
  { name: 'FieldCRCR', input: 'field\r\rfield\r\r', output: [['field\r\rfield\r']] },
  { name: 'FieldCRCRLF', input: 'field\r\r\n¶field\r\r\n', output: [['field\r'], ['field\r']] },
  { name: 'FieldCRCRLFCR', input: 'field\r\r\n¶\rfield\r\r\n\r', output: [['field\r'], ['\rfield\r']] },
  { name: 'FieldCRCRLFCRCR', input: 'field\r\r\n¶\r\rfield\r\r\n¶\r\r', output: [['field\r'], ['\r\rfield\r'], ['\r']] },
  {
    name: 'MultiFieldCRCRLFCRCR',
    input: 'field1,field2\r\r\n¶\r\rfield1,field2\r\r\n¶\r\r,',
    output: [['field1', 'field2\r'], ['\r\rfield1', 'field2\r'], ['\r\r', '']],
  },
  { name: 'QuotedFieldMultipleLF', input: '"\n\n\n\n"', output: [['\n\n\n\n']] },
  { name: 'MultipleCRLF', input: '\r\n\r\n\r\n\r\n', output: [] },
  { name: 'QuoteWithTrailingCRLF', input: '"foo∑"bar"\r\n', error: ERR_QUOTE },
  { name: 'DoubleQuoteWithTrailingCRLF', input: '"foo""bar"\r\n', output: [['foo"bar']] },
  { name: 'EvenQuotes', input: '""""""""', output: [['"""']] },
  { name: 'OddQuotes', input: '"""""""∑', error: ERR_QUOTE },
];

/** The text without markers, the line each record starts on, and the error's line and (byte) column. */
function unmark(marked: string): { text: string; starts: number[]; at?: { line: number; column: number } } {
  let text = '';
  let line = 1;
  let column = 1;
  const starts: number[] = [];
  let recordStarted = false;
  let at: { line: number; column: number } | undefined;
  for (const ch of marked) {
    if (ch === '¶') { recordStarted = false; continue; }
    if (ch === '∑') { at = { line, column }; continue; }
    if (!recordStarted && ch !== '\n') { starts.push(line); recordStarted = true; }
    text += ch;
    if (ch === '\n') { line++; column = 1; } else column += Buffer.byteLength(ch);
  }
  return { text, starts, at };
}

describe('parseCsv (Go encoding/csv, FieldsPerRecord = -1)', () => {
  describe("Go's reader test vectors", () => {
    for (const v of GO_VECTORS) {
      it(v.name, () => {
        const { text, starts, at } = unmark(v.input);
        if (v.error) {
          let thrown: unknown;
          try { parseCsv(text); } catch (err) { thrown = err; }
          expect(thrown).to.be.instanceOf(CsvError);
          const e = thrown as CsvError;
          expect({ line: e.line, column: e.column }).to.deep.equal(at);
          expect(e.message).to.match(new RegExp(`parse error on line ${at!.line}, column ${at!.column}: ${v.error.replace(/"/g, '\\"')}$`));
          return;
        }
        const records = parseCsv(text);
        expect(records.map((r) => r.fields)).to.deep.equal(v.output);
        expect(records.map((r) => r.line)).to.deep.equal(starts.slice(0, records.length));
      });
    }
  });

  it('reports the record start and the error line apart when they differ, as Go does', () => {
    expect(() => parseCsv('a,"b\nc"d,e')).to.throw(CsvError, 'record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field');
    expect(() => parseCsv('a,b\n"d\n\n,e')).to.throw(CsvError, 'record on line 2; parse error on line 4, column 3: extraneous or missing " in quoted-field');
    expect(() => parseCsv('ok,1\nbad"2,3')).to.throw(CsvError, /^parse error on line 2, column 4: bare " in non-quoted-field$/);
  });

  it('counts columns in bytes, as Go does', () => {
    expect(() => parseCsv('é,x"')).to.throw(CsvError, 'parse error on line 1, column 5: bare " in non-quoted-field');
  });

  it('numbers records by the line they start on, past empty and CRLF lines and multi-line fields', () => {
    const records = parseCsv('\r\n\na,b\r\n"multi\r\nline",c\n\nlast,d');
    expect(records).to.deep.equal([
      { line: 3, fields: ['a', 'b'] },
      { line: 4, fields: ['multi\nline', 'c'] },
      { line: 7, fields: ['last', 'd'] },
    ]);
  });

  it('never puts the text of the input in an error', () => {
    for (const input of ['s3cr3t-token"x,u,1', '"s3cr3t-token"junk,u,1', '"s3cr3t-token,u,1']) {
      expect(() => parseCsv(input)).to.throw(CsvError).that.satisfies((e: Error) => !e.message.includes('s3cr3t'));
    }
  });
});

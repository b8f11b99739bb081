/**
 * parseChunkSize and checkTrailerLine (lib/http1/chunked-body.ts) with rows as data: the
 * chunk-size lines and trailer lines Node's llhttp takes, those it refuses (the smuggling
 * surface of issue 37: bare CR or LF, whitespace, malformed extensions), those RFC 9112 forbids
 * and llhttp takes, and Node's 16 KiB bound on extension bytes per line (413).
 */
import { expect } from 'chai';
import { checkTrailerLine, MAX_CHUNK_EXTENSIONS, parseChunkSize } from '../../../lib/http1/chunked-body';
import { ProtocolError } from '../../../lib/http1/protocol-error';

function refusal(fn: () => unknown): [number, string] | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw err;
    return [err.status, err.code];
  }
}

const a = (n: number) => 'a'.repeat(n);

describe('chunked framing lines (lib/http1/chunked-body)', () => {
  describe('chunk-size lines llhttp takes', () => {
    const rows: Array<[string, number]> = [
      ['5', 5], ['A', 10], ['a', 10], ['0', 0], ['00000000000000000005', 5], ['1fffffffffffff', Number.MAX_SAFE_INTEGER],
      ['5;a', 5], ['5;a=b', 5], ['5;a="b c"', 5], ['5;a="b\\"c"', 5], ['5;a=""', 5], ['5;a="\t"', 5], ['5;a="\xe9"', 5],
      ['5;a;b', 5], ['5;a="b;c=d";e', 5], ['0;a=b', 0],
    ];
    rows.forEach(([line, size]) => it(`${JSON.stringify(line)}: ${size}`, () => {
      expect(parseChunkSize(line)).to.equal(size);
    }));
  });

  describe('chunk-size lines llhttp refuses (400)', () => {
    const rows: Array<[string, string]> = [
      ['5 ', 'chunk-size'], ['5\t', 'chunk-size'], ['5 ;a', 'chunk-size'], ['5\nhello', 'chunk-size'], ['5\rhello', 'chunk-size'],
      ['0x5', 'chunk-size'], ['-5', 'chunk-size'], ['+5', 'chunk-size'], ['', 'chunk-size'], [';a', 'chunk-size'],
      ['5;a\nx', 'chunk-extension'], ['5;a\rx', 'chunk-extension'], ['5; a', 'chunk-extension'], ['5;a ', 'chunk-extension'],
      ['5;a =b', 'chunk-extension'], ['5;a= b', 'chunk-extension'], ['5;a=b ', 'chunk-extension'], ['5;a="b', 'chunk-extension'],
      ['5;a="b"x', 'chunk-extension'], ['5;', 'chunk-extension'], ['5;;', 'chunk-extension'], ['5;a=b;', 'chunk-extension'],
      ['5;a=b=c', 'chunk-extension'], ['5;a\xe9', 'chunk-extension'], ['5;a="\x01"', 'chunk-extension'], ['5;a="\\\x01"', 'chunk-extension'],
      ['5;a="\x7f"', 'chunk-extension'], ['5;a="b\nc"', 'chunk-extension'],
    ];
    rows.forEach(([line, code]) => it(`${JSON.stringify(line)}: ${code}`, () => {
      expect(refusal(() => parseChunkSize(line))).to.deep.equal([400, code]);
    }));
  });

  describe('chunk-size lines refused, stricter than llhttp (RFC 9112 7.1)', () => {
    const rows: Array<[string, string]> = [
      // chunk-ext-name = token, chunk-ext-val = token / quoted-string (7.1.1).
      ['5;=b', 'chunk-extension-empty'], ['5;a=', 'chunk-extension-empty'], ['5;;a', 'chunk-extension-empty'],
      // A size beyond 2^53 - 1 would lose precision (7.1: recipients must prevent overflow).
      ['20000000000000', 'chunk-size-overflow'], ['ffffffffffffffff', 'chunk-size-overflow'],
    ];
    rows.forEach(([line, code]) => it(`${JSON.stringify(line)}: ${code}`, () => {
      expect(refusal(() => parseChunkSize(line))).to.deep.equal([400, code]);
    }));
  });

  it(`takes ${MAX_CHUNK_EXTENSIONS} bytes of extension names and values on a line and answers 413 past them, as Node counts them`, () => {
    expect(parseChunkSize(`5;${a(16384)}`)).to.equal(5);
    expect(parseChunkSize(`5;${a(8192)}=${a(8192)}`)).to.equal(5);
    expect(parseChunkSize(`5;${a(8192)};${a(8192)}`)).to.equal(5);
    for (const line of [`5;${a(16385)}`, `5;${a(8192)}=${a(8193)}`, `5;${a(8192)};${a(8193)}`, `5;a="${a(16382)}"`]) {
      expect(refusal(() => parseChunkSize(line)), line.slice(0, 20)).to.deep.equal([413, 'chunk-extensions-too-large']);
    }
  });

  describe('trailer field lines, checked as header fields', () => {
    for (const line of ['X: t', 'X:', 'Host: y', 'X:\tt\t']) it(`takes ${JSON.stringify(line)}`, () => expect(refusal(() => checkTrailerLine(line))).to.equal(undefined));
    const rows: Array<[string, string]> = [
      ['X t', 'trailer-field'], ['X : t', 'trailer-field'], [' X: t', 'trailer-field'], ['X: t\x01', 'trailer-field'], [': t', 'trailer-field'],
      ['X: t\n', 'trailer-field'], ['Content-Length: 5', 'trailer-framing-field'], ['transfer-encoding: chunked', 'trailer-framing-field'],
    ];
    rows.forEach(([line, code]) => it(`refuses ${JSON.stringify(line)}: ${code}`, () => {
      expect(refusal(() => checkTrailerLine(line))).to.deep.equal([400, code]);
    }));
  });
});

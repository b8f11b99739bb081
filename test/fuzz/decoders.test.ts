/**
 * Server-less properties of every decoder a request meets (thousands of inputs a second): body
 * decoding (JSON, YAML, protobuf), continue tokens, label and field selectors and request paths
 * either give a value or throw an ApiError of 4xx, never anything else. Plus two differential
 * properties: the depth pre-check agrees with the real depth of any JSON value, and the YAML
 * decoder with its depth check gives what `yaml` itself gives on documents within the limit.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import YAML from 'yaml';
import { decodeBody } from '../../lib/api/negotiation';
import { decodeRequestBody } from '../../lib/api/protobuf-body';
import { jsonDepthExceeds, parseYamlDocuments, valueDepthExceeds } from '../../lib/api/decode-limits';
import { decodeContinue, encodeContinue } from '../../lib/registry/continue-token';
import { matchesLabels, parseLabelSelector } from '../../lib/meta/label-selector';
import { parseFieldSelector } from '../../lib/meta/field-selector';
import { parseRequestInfo } from '../../lib/api/request-info';
import { isApiError } from '../../lib/meta/api-errors';
import { continueToken, fieldSelectorText, jsonText, labelSelectorText, listQuery, protobufFrame, rawPath, yamlText } from './arbitraries';
import { checkProperty, unitRuns } from './fuzz-run';

/** Runs `f`; anything thrown must be an ApiError with a 4xx code. */
function only4xx(what: string, f: () => unknown): unknown {
  try {
    return f();
  } catch (err) {
    if (isApiError(err) && err.code >= 400 && err.code < 500) return undefined;
    throw new Error(`${what}: threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
  }
}

/** The nesting depth of a JSON value, counted iteratively. */
function depthOf(v: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') { max = Math.max(max, d); continue; }
    max = Math.max(max, d + 1);
    for (const c of Array.isArray(x) ? x : Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
}

describe('fuzz: decoders without a server', function () {
  this.timeout(0);

  it('decodeBody: JSON and YAML bodies decode or are refused with 4xx', async () => {
    const bytes = fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1'));
    await checkProperty('decodeBody', fc.property(
      fc.oneof(
        fc.tuple(fc.constant('application/json'), fc.oneof(jsonText, bytes)),
        fc.tuple(fc.constant('application/yaml'), fc.oneof(yamlText, bytes)),
        fc.tuple(fc.constantFrom('text/plain', ''), bytes),
      ),
      ([type, text]) => { only4xx(`decodeBody(${type}) ${text.slice(0, 200)}`, () => decodeBody(Buffer.from(text), type)); }), unitRuns(1000));
  });

  it('decodeRequestBody: protobuf frames decode or are refused with 4xx', async () => {
    await checkProperty('decodeRequestBody-protobuf', fc.property(protobufFrame, fc.constantFrom('application/vnd.kubernetes.protobuf', 'application/vnd.orch.protobuf'),
      (frame, type) => { only4xx(`protobuf ${frame.toString('hex').slice(0, 200)}`, () => decodeRequestBody(frame, type)); }), unitRuns(3000));
  });

  it('decodeContinue: a token decodes to a key inside the prefix, or is 400', async () => {
    const real = [encodeContinue({ rv: 5, start: 'ns/a', issuedAt: 1 }), encodeContinue({ rv: 77, start: 'b', issuedAt: 2 })];
    await checkProperty('decodeContinue', fc.property(continueToken(() => real), (tok) => {
      const t = only4xx(`decodeContinue ${tok}`, () => decodeContinue(tok)) as ReturnType<typeof decodeContinue> | undefined;
      if (t) {
        expect(Number.isSafeInteger(t.rv) && t.rv > 0, tok).to.equal(true);
        expect(t.start.startsWith('/'), tok).to.equal(false);
        expect(t.start.split('/').some((x) => x === '..' || x === '.'), tok).to.equal(false);
      }
    }), unitRuns(3000));
  });

  it('parseLabelSelector: parses or is 400; a parsed selector matches without throwing', async () => {
    await checkProperty('parseLabelSelector', fc.property(labelSelectorText, fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })), (s, labels) => {
      const sel = only4xx(`labelSelector ${s}`, () => parseLabelSelector(s)) as ReturnType<typeof parseLabelSelector> | undefined;
      if (sel) matchesLabels(sel, labels);
    }), unitRuns(3000));
  });

  it('parseFieldSelector: parses or is 400', async () => {
    await checkProperty('parseFieldSelector', fc.property(fieldSelectorText, (s) => {
      only4xx(`fieldSelector ${s}`, () => parseFieldSelector(s, ['metadata.name', 'metadata.namespace']));
    }), unitRuns(3000));
  });

  it('parseRequestInfo: any path and query parse or are 4xx', async () => {
    await checkProperty('parseRequestInfo', fc.property(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'FOO'), rawPath, listQuery(() => []), (m, p, q) => {
      only4xx(`${m} ${p}?${q}`, () => parseRequestInfo(m, p, q));
    }), unitRuns(3000));
  });

  it('jsonDepthExceeds agrees with the depth of the value', async () => {
    await checkProperty('jsonDepthExceeds-differential', fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 14 }), fc.boolean(), (v, max, pretty) => {
      const text = JSON.stringify(v, null, pretty ? 1 : undefined) ?? 'null';
      const pad = ' '.repeat(max + 1); // longer than max: the short-text shortcut does not answer
      expect(jsonDepthExceeds(pad + text, max), text).to.equal(depthOf(v) > max);
      expect(valueDepthExceeds(v, max), text).to.equal(depthOf(v) > max);
    }), unitRuns(3000));
  });

  it('parseYamlDocuments gives what yaml.parseAllDocuments gives, within the limit', async () => {
    await checkProperty('parseYamlDocuments-differential', fc.property(fc.oneof(yamlText, fc.jsonValue({ maxDepth: 5 }).map((v) => YAML.stringify(v))), (text) => {
      if (text.length > 100_000) return;
      const mine = only4xx(`yaml ${text.slice(0, 200)}`, () => parseYamlDocuments(text, 50)) as YAML.Document.Parsed[] | undefined;
      if (!mine) return;
      const theirs = YAML.parseAllDocuments(text, { logLevel: 'error' }) as YAML.Document.Parsed[];
      expect(mine.length).to.equal(theirs.length);
      // A document's first error, the one a body is refused with, with its position; the rest by their messages alone.
      const line = (e: Error) => e.message.split('\n')[0];
      const unplaced = (e: Error) => line(e).replace(/ at line \d+, column \d+:?$/, '');
      mine.forEach((d, i) => {
        expect(d.errors.slice(0, 1).map(line)).to.deep.equal(theirs[i].errors.slice(0, 1).map(line));
        expect(d.errors.map(unplaced)).to.deep.equal(theirs[i].errors.map(unplaced));
        if (!d.errors.length) {
          let a: unknown; let b: unknown;
          try { a = d.toJS({ maxAliasCount: 100 }); } catch (e) { a = `threw ${(e as Error).message}`; }
          try { b = theirs[i].toJS({ maxAliasCount: 100 }); } catch (e) { b = `threw ${(e as Error).message}`; }
          expect(a).to.deep.equal(b);
        }
      });
    }), unitRuns(800));
  });
});

/**
 * Hostile inputs for the fuzz suite: JSON (random values, deep nesting at and around the limit,
 * huge strings and numbers, `__proto__`, duplicate keys, broken bytes), YAML (anchors, aliases,
 * billion laughs, tags, merge keys, several documents, deep flow and block nesting), protobuf
 * frames (random, and mutations of a valid encoding), patches of every type with their
 * directives, DeleteOptions, selectors, query parameters, paths and continue tokens.
 */
import fc from 'fast-check';
import { MAX_JSON_DEPTH, MAX_YAML_DEPTH } from '../../lib/api/decode-limits';
import { encodeProtobuf } from '../../lib/scheme/protobuf';
import { encodeContinue } from '../../lib/registry/continue-token';

/** Depths around the limits and far past them. */
export const depths = fc.constantFrom(1, 2, 50, MAX_YAML_DEPTH - 1, MAX_YAML_DEPTH, MAX_YAML_DEPTH + 1,
  MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 10_000, 100_000);

/** Deeply nested JSON text of objects, arrays or both, around `inner`. */
export function deepJson(depth: number, shape: 'object' | 'array' | 'mixed', inner = '1'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const arr = shape === 'array' || (shape === 'mixed' && i % 2 === 1);
    open += arr ? '[' : '{"k":';
    close = (arr ? ']' : '}') + close;
  }
  return open + inner + close;
}

const jsonScalarText = fc.oneof(
  fc.jsonValue({ maxDepth: 0 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.constantFrom('1e309', '-0', '123456789012345678901234567890', '0.0000000000000000000001', '"\\ud800"', '"\\u0000"', 'true', 'null'),
);

/** A JSON text: a random value, a deep one, or a value with traps; sometimes broken. */
export const jsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 2, arbitrary: fc.tuple(depths, fc.constantFrom('object', 'array', 'mixed') as fc.Arbitrary<'object' | 'array' | 'mixed'>, jsonScalarText).map(([d, s, i]) => deepJson(d, s, i)) },
  { weight: 1, arbitrary: fc.constantFrom('{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '{"a":1,"a":2}', '{"metadata":{"name":"x","name":"y"}}') },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('{', '}', '[', ']', ':', ',', '"', '\\', 'a', '1', ' ', 'null') , maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constantFrom(1000, 100_000, 2_900_000).map((n) => `{"s":"${'x'.repeat(n)}"}`) },
);

/** Object-shaped JSON that looks like a ConfigMap, with random parts in random places. */
export const configMapLikeJson: fc.Arbitrary<string> = fc.record({
  apiVersion: fc.oneof(fc.constant('"v1"'), jsonScalarText),
  kind: fc.oneof(fc.constant('"ConfigMap"'), jsonScalarText),
  metadata: fc.oneof(fc.constant('{"generateName":"fz-"}'), jsonText),
  data: fc.oneof(fc.constant('{"a":"b"}'), jsonText),
  extra: jsonText,
}).map((r) => `{"apiVersion":${r.apiVersion},"kind":${r.kind},"metadata":${r.metadata},"data":${r.data},"extra":${r.extra}}`);

const yamlKey = fc.constantFrom('a', 'b', 'metadata', 'data', 'spec', '<<', '? x', '"q"', "'s'", '!!str k');
const yamlScalar = fc.oneof(
  fc.constantFrom('1', '0x1F', '1e400', '.inf', '.nan', '~', 'null', 'yes', 'no', 'on', '2001-12-14', '"a\\u0000b"', "'x'",
    '!!binary aGVsbG8=', '!!binary ***', '!foo bar', '!!int x', '!!float y', '!!timestamp z', '!!set {a, b}', '!!omap [a: 1]', '|\n  block', '>-\n  folded'),
  fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
);

/** YAML text: anchors and aliases, laughs, tags, merge keys, documents, deep nesting, huge scalars. */
export const yamlText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.tuple(yamlKey, yamlScalar), { maxLength: 8 }).map((kv) => kv.map(([k, v]) => `${k}: ${v}`).join('\n')) },
  {
    weight: 2,
    // Anchors and aliases in random order: aliases before their anchor, to themselves, repeated.
    arbitrary: fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.boolean(), fc.integer({ min: 1, max: 9 })), { minLength: 1, maxLength: 8 })
      .map((xs) => xs.map(([n, anchor, k], i) => anchor ? `k${i}: &${n} [${Array(k).fill(`*${n}`).join(', ')}]` : `k${i}: [${Array(k).fill(`*${n}`).join(', ')}]`).join('\n')),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 2, max: 12 }).map((levels) => {
      const lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
      for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [${Array(9).fill(`*l${i - 1}`).join(',')}]`);
      return lines.join('\n');
    }),
  },
  { weight: 1, arbitrary: fc.tuple(depths, fc.constantFrom('flow-seq', 'flow-map', 'block-map', 'block-seq')).map(([d, s]) => deepYaml(Math.min(d, s.startsWith('block') ? 1700 : 20_000), s)) },
  { weight: 1, arbitrary: fc.constantFrom('a: 1\n---\nb: 2', '---\n...\n---', '%YAML 1.2\n---\na: 1', '%TAG ! tag:x,2000:\n---\n!a b', 'base: &b {x: 1}\nm:\n  <<: *b\n  <<: [*b, *b]', '? [a, b]\n: c', '? {a: b}\n: c', '*missing', '&a *a', '[a, b', '{a: }', '\t- x', 'a: !!binary |\n  ####') },
  { weight: 1, arbitrary: fc.constantFrom(1000, 100_000, 1_000_000).map((n) => `a: "${'y'.repeat(n)}"`) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('-', ' ', ':', '\n', '[', ']', '{', '}', '&a', '*a', '!', '|', '>', '#', '?', ',', '"', "'", 'x'), maxLength: 120 }) },
);

/** Deep YAML in one of four styles (block styles grow as depth squared: 1,700 levels fill the 3 MiB body limit). */
export function deepYaml(depth: number, style: 'flow-seq' | 'flow-map' | 'block-map' | 'block-seq'): string {
  switch (style) {
    case 'flow-seq': return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    case 'flow-map': return `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`;
    case 'block-map': {
      const parts: string[] = [];
      for (let i = 0; i < depth; i++) parts.push(`${' '.repeat(i)}a:\n`);
      return `${parts.join('')}${' '.repeat(depth)}x: 1\n`;
    }
    default: {
      const parts: string[] = [];
      for (let i = 0; i < depth; i++) parts.push(`${' '.repeat(i * 2)}-\n`);
      return `${parts.join('')}${' '.repeat(depth * 2)}- 1\n`;
    }
  }
}

/** A YAML object that apply could take: a ConfigMap or CronTab with random parts. */
export function applyYaml(apiVersion: string, kind: string, name: string): fc.Arbitrary<string> {
  return fc.record({
    meta: fc.oneof(fc.constant(`{name: ${name}}`), fc.constant(`{name: other}`), yamlText.map((y) => JSON.stringify(y)),
      fc.jsonValue({ maxDepth: 3 }).map((v) => `{name: ${name}, managedFields: ${JSON.stringify(v)}}`),
      fc.constant(`{name: ${name}, managedFields: [{manager: x, operation: Apply, fieldsType: FieldsV1, fieldsV1: {"f:data": {"f:zz": {}}}}]}`),
      fc.constant(`{name: ${name}, managedFields: [{manager: x, operation: Bogus, fieldsType: FieldsV2, fieldsV1: {"g:": 1}}]}`)),
    body: fc.oneof(yamlText.map((y) => y.split('\n').map((l) => `  ${l}`).join('\n')), fc.constant('  a: b')),
    top: fc.constantFrom('data', 'spec', 'binaryData', 'status', 'extra'),
    av: fc.oneof(fc.constant(apiVersion), fc.constantFrom('v1', 'apps/v1', 'x/y/z', '""')),
    k: fc.oneof(fc.constant(kind), fc.constantFrom('Secret', 'List', '""', 'x')),
  }).map((r) => `apiVersion: ${r.av}\nkind: ${r.k}\nmetadata: ${r.meta}\n${r.top}:\n${r.body}\n`);
}

/** A valid protobuf ConfigMap, and frames made from it or from nothing. */
const validConfigMap = Buffer.from(encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pbfz', namespace: 'fuzz', labels: { a: 'b' } }, data: { k: 'v' } } as any));
const PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export const protobufFrame: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.concat([PREFIX, Buffer.from(b)])) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) },
  {
    weight: 4,
    // Flip bytes, cut, grow, or splice a huge varint length into a valid encoding.
    arbitrary: fc.array(fc.tuple(fc.nat(validConfigMap.length - 1), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'cut', 'insert', 'varint')), { minLength: 1, maxLength: 4 })
      .map((muts) => {
        let b = Buffer.from(validConfigMap);
        for (const [pos, byte, how] of muts) {
          const p = Math.min(pos, b.length - 1);
          if (how === 'set') b[p] = byte;
          else if (how === 'cut') b = b.subarray(0, Math.max(4, p));
          else if (how === 'insert') b = Buffer.concat([b.subarray(0, p), Buffer.from([byte]), b.subarray(p)]);
          else b = Buffer.concat([b.subarray(0, p), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), b.subarray(p + 1)]);
        }
        return b;
      }),
  },
  // Unknown envelopes nested in the raw field (field 2 of Unknown) up to past the depth limit.
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 1500 }).map((n) => nestedUnknown(n)) },
);

/** `k8s\0` + Unknown{raw: Unknown{raw: ...}} nested `n` times (each a length-delimited field 2). */
function nestedUnknown(n: number): Buffer {
  let inner: Buffer = Buffer.from([0x0a, 0x00]);
  for (let i = 0; i < n; i++) inner = Buffer.concat([Buffer.from([0x12]), varint(inner.length), inner]);
  return Buffer.concat([PREFIX, inner]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) { out.push((n & 0x7f) | 0x80); n >>>= 7; }
  out.push(n);
  return Buffer.from(out);
}

const pointer = fc.oneof(
  fc.constantFrom('/data/a', '/data/-', '/metadata/labels/x', '/metadata/name', '/metadata/resourceVersion', '/metadata/managedFields', '/metadata/managedFields/0',
    '/spec/containers/0/image', '/spec/containers/-', '/spec/containers/0/args/1', '/spec/replicas', '/spec/extra', '/', '', '/a~1b', '/a~2', '/~', '/data/ä', '/kind', '/apiVersion', '/spec/extra/0/1/2'),
  fc.array(fc.oneof(fc.constantFrom('-', '0', '~0', '~1', '', '..', '%2F', '99999999999999999999'), fc.string({ maxLength: 6 })), { maxLength: 5 }).map((s) => `/${s.join('/')}`),
);

/** A JSON patch: arrays of operations, valid-looking and not. */
export const jsonPatchText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.record({ op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), fc.string({ maxLength: 5 })), path: pointer, from: fc.option(pointer), value: fc.option(jsonText) }), { maxLength: 6 })
    .map((ops) => `[${ops.map((o) => `{"op":${JSON.stringify(o.op)},"path":${JSON.stringify(o.path)}${o.from !== null ? `,"from":${JSON.stringify(o.from)}` : ''}${o.value !== null ? `,"value":${o.value}` : ''}}`).join(',')}]`) },
  { weight: 1, arbitrary: jsonText },
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 10_050 }).map((n) => `[${Array(n).fill('{"op":"test","path":"/kind","value":"ConfigMap"}').join(',')}]`) },
);

/** A merge patch: objects with random values, null deletions and deep values. */
export const mergePatchText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.dictionary(fc.constantFrom('data', 'metadata', 'spec', 'status', 'kind', 'apiVersion', 'extra', 'binaryData', 'immutable'), jsonText, { maxKeys: 4 }).map((d) => `{${Object.entries(d).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`) },
  { weight: 1, arbitrary: jsonText },
);

/** A strategic merge patch with its directives in random places. */
export const strategicPatchText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      patch: fc.constantFrom('"delete"', '"replace"', '"merge"', '"bogus"', '1', 'null', '{}'),
      retain: fc.oneof(fc.constant('["image"]'), fc.constant('"x"'), jsonText),
      order: fc.oneof(fc.constant('[{"name":"c"}]'), fc.constant('[1,2]'), fc.constant('[{"x":1}]'), jsonText),
      deleteFrom: fc.oneof(fc.constant('["a"]'), jsonText),
      value: jsonText,
      where: fc.constantFrom('top', 'spec', 'podspec', 'containers', 'data'),
    }).map((r) => {
      const containers = `[{"name":"c","$patch":${r.patch},"image":${r.value}},{"$patch":${r.patch}},{"name":${r.value}}]`;
      const podSpec = `{"$setElementOrder/containers":${r.order},"containers":${containers},"$retainKeys":${r.retain},"activeDeadlineSeconds":${r.value},"$deleteFromPrimitiveList/args":${r.deleteFrom}}`;
      const spec = `{"$retainKeys":${r.retain},"replicas":${r.value},"template":{"spec":${podSpec}}}`;
      switch (r.where) {
        case 'top': return `{"$patch":${r.patch},"metadata":{"labels":{"$patch":${r.patch}}}}`;
        case 'spec': return `{"spec":${spec}}`;
        case 'podspec': return `{"spec":${podSpec}}`;
        case 'containers': return `{"spec":{"containers":${containers}}}`;
        default: return `{"data":{"$patch":${r.patch},"a":${r.value}},"$setElementOrder/data":${r.order}}`;
      }
    }),
  },
  { weight: 1, arbitrary: mergePatchText },
);

/** A DeleteOptions body of random field types. */
export const deleteOptionsText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.oneof(fc.constant('"DeleteOptions"'), jsonScalarText),
      apiVersion: fc.oneof(fc.constantFrom('"v1"', '"meta.k8s.io/v1"'), jsonScalarText),
      propagationPolicy: fc.oneof(fc.constantFrom('"Orphan"', '"Background"', '"Foreground"', '"Sideways"'), jsonText),
      preconditions: fc.oneof(fc.constant('{"uid":"00000000-0000-0000-0000-000000000000"}'), fc.constant('{"resourceVersion":"1"}'), jsonText),
      gracePeriodSeconds: fc.oneof(fc.constantFrom('0', '-1', '30', '1e20', '"5"', '1.5'), jsonText),
      orphanDependents: fc.oneof(fc.constantFrom('true', 'false', '"yes"'), jsonText),
      dryRun: fc.oneof(fc.constantFrom('["All"]', '["x"]', '"All"', '[]'), jsonText),
    }, { requiredKeys: [] }).map((r) => `{${Object.entries(r).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  },
  { weight: 1, arbitrary: jsonText },
);

/** Label selector text over its own alphabet, with unicode now and then. */
export const labelSelectorText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'x.io/', '=', '==', '!=', '!', ',', '(', ')', ' in ', ' notin ', ' ', '-', '_', '.', '1', 'é', '\u0000'), maxLength: 40 }),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('a in (b,c),!d,e!=f', 'a in ()', 'a in (', 'a notin (b', 'x'.repeat(300), `${'a,'.repeat(5000)}a`, 'a=b=c', '!', '=', 'a in (b,c) notin (d)'),
);

/** Field selector text (metadata.name, metadata.namespace, and unknown fields). */
export const fieldSelectorText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.constantFrom('metadata.name', 'metadata.namespace', 'spec.x', 'status.phase', '=', '==', '!=', ',', '\\', '\\,', ' ', 'a', '(', 'in'), maxLength: 30 }),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('metadata.name=', 'metadata.name=a\\', 'metadata.name=a\\x', `metadata.name=${'a'.repeat(10_000)}`),
);

/** A continue token: random, a real one truncated or with a bit flipped, forged, or another resource's. */
export function continueToken(real: () => string[]): fc.Arbitrary<string> {
  const forged = fc.record({
    v: fc.oneof(fc.constant('meta.k8s.io/v1'), fc.string({ maxLength: 8 })),
    // Mostly revisions the store has; one past it waits like kube-apiserver (up to 3 s) before its 504.
    rv: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: -5, max: 200 }) }, fc.constantFrom(0, 2 ** 53, 1.5, Number.MAX_SAFE_INTEGER, 999_999_999)),
    start: fc.oneof(fc.constantFrom('', '/', '../x', 'a/../../b', '.', 'fuzz/', '\u0000', '%2e%2e', 'kube-system/x', 'x'.repeat(2000)), fc.string({ maxLength: 10 })),
    t: fc.oneof(fc.integer(), fc.constant(0), fc.constant(Date.now() - 3_600_000 * 24)),
  }).map((r) => Buffer.from(JSON.stringify(r)).toString('base64url'));
  return fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.base64String({ maxLength: 60 }),
    forged,
    fc.constantFrom(encodeContinue({ rv: 1, start: 'fuzz/cm', issuedAt: Date.now() }), encodeContinue({ rv: 999_999_999, start: 'fuzz/', issuedAt: Date.now() })),
    fc.tuple(fc.constant(0), fc.nat(), fc.nat(7)).map(([, i, bit]) => {
      const tokens = real();
      if (!tokens.length) return '';
      const tok = tokens[i % tokens.length];
      const raw = Buffer.from(tok, 'base64url');
      raw[i % raw.length] ^= 1 << bit;
      return raw.toString('base64url');
    }),
    fc.tuple(fc.nat(), fc.nat()).map(([i, cut]) => {
      const tokens = real();
      if (!tokens.length) return '';
      const tok = tokens[i % tokens.length];
      return tok.slice(0, cut % (tok.length + 1));
    }),
    // A whole token from another resource's list.
    fc.nat().map((i) => { const tokens = real(); return tokens.length ? tokens[i % tokens.length] : ''; }),
  );
}

/** Query strings for a list: random values for each list parameter, percent-encoded or raw. */
export function listQuery(continueTokens: () => string[]): fc.Arbitrary<string> {
  const val = fc.oneof(fc.constantFrom('', '0', '-1', '1', '500', '1e3', '0x10', '9999999999999999999999', 'true', 'false', 'All', 'Exact', 'NotOlderThan', 'Strict', 'Warn', 'Ignore', '%', '%00', '%ZZ'), fc.string({ maxLength: 12 }));
  const pair = fc.oneof(
    fc.tuple(fc.constantFrom('limit', 'resourceVersion', 'resourceVersionMatch', 'timeoutSeconds', 'fieldValidation', 'dryRun', 'pretty', 'allowWatchBookmarks', 'sendInitialEvents', 'includeObject', 'propagationPolicy', 'gracePeriodSeconds', 'orphanDependents', 'fieldManager', 'force', 'x'), val)
      .map(([k, v]) => `${k}=${/%/.test(v) && /^[\x21-\x7e]*$/.test(v) ? v : encodeURIComponent(v)}`),
    labelSelectorText.map((s) => `labelSelector=${encodeURIComponent(s)}`),
    fieldSelectorText.map((s) => `fieldSelector=${encodeURIComponent(s)}`),
    continueToken(continueTokens).map((s) => `continue=${encodeURIComponent(s)}`),
    fc.constantFrom('limit', 'limit=1&limit=2', '&&', '=', 'continue', 'continue=&limit=1'),
  );
  return fc.array(pair, { maxLength: 5 }).map((ps) => ps.join('&'));
}

const segment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('api', 'apis', 'v1', 'namespaces', 'fuzz', 'configmaps', 'cm', 'secrets', 'pods', 'apps', 'deployments', 'status', 'scale', 'log', 'proxy', 'watch', 'finalize', 'stable.example.com', 'crontabs', 'default', 'kube-system') },
  { weight: 2, arbitrary: fc.constantFrom('..', '.', '', '%2F', '%2f', '%2e%2e', '%2E', '%00', '%', '%ZZ', '%C0%AF', '%E2%80%AE', '~', ';', 'a;b', 'a:b', '@', '*', "'", 'x'.repeat(300), 'x'.repeat(20_000), 'A', 'é', '%25', '+', '%20') },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('a', '-', '.', '%', '2', 'F', 'e', '0', 'Z', '_'), maxLength: 12 }) },
);

/** A raw path from plausible and hostile segments (sent byte for byte). */
export const rawPath: fc.Arbitrary<string> = fc.array(segment, { minLength: 1, maxLength: 8 }).chain((segs) =>
  fc.constantFrom('', '/').map((trail) => `/${segs.map((s) => (/[^\x21-\x7e]/.test(s) ? encodeURIComponent(s) : s)).join('/')}${trail}`));

/** Object names: DNS-1123 subdomains and what is not one. */
export const objectName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('a', 'a.b', 'a-b', '-a', 'a-', 'A', '..', '.', 'a/b', 'a%2Fb', 'a b', 'x'.repeat(253), 'x'.repeat(254), 'x'.repeat(64), '', 'é', 'a\u0000b', 'a_b', '0'),
  fc.string({ unit: fc.constantFrom('a', 'z', '0', '-', '.', '/', '%', ' ', 'A', '_', ':'), maxLength: 20 }),
);

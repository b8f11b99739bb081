/**
 * Fuzzing what a request says outside its body, through HTTPS against a real etcd: label and
 * field selectors, list query parameters, continue tokens (forged, truncated, bit-flipped, from
 * another resource), raw paths (percent encodings, `..`, `/`, %00, overlong segments) under every
 * method, and object names. Same property as the body suite: below 500, a Status for every 4xx,
 * the store unchanged when refused, the process alive.
 */
import fc from 'fast-check';
import { continueToken, fieldSelectorText, labelSelectorText, listQuery, objectName, rawPath } from './arbitraries';
import { CM, CT, expectAlive, FuzzServer, hostile, NS, startFuzzServer } from './harness';
import { checkProperty, httpRuns } from './fuzz-run';

const LISTS = [CM, CT, `/api/v1/namespaces/${NS}/pods`, '/api/v1/configmaps', '/api/v1/namespaces', '/apis/rbac.authorization.k8s.io/v1/clusterroles', '/apis/apps/v1/deployments'];

describe('fuzz: selectors, query parameters, continue tokens, paths and names over HTTPS', function () {
  this.timeout(0);
  let s: FuzzServer;
  /** Real continue tokens of several resources' lists (one list's token is another's forgery). */
  const tokens: string[] = [];
  before(async () => {
    s = await startFuzzServer();
    for (let i = 0; i < 3; i++) await s.t.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `page-${i}` } });
    for (const p of ['/api/v1/configmaps', CM, '/apis/rbac.authorization.k8s.io/v1/clusterroles', '/api/v1/namespaces']) {
      const res = await s.send('GET', `${p}?limit=1`);
      if (res.body?.metadata?.continue) tokens.push(res.body.metadata.continue);
    }
  });
  after(async () => { await s?.stop(); });
  afterEach(async () => { if (s) await expectAlive(s); });

  it('label and field selectors on lists and deletecollection', async () => {
    await checkProperty('selectors', fc.asyncProperty(
      fc.constantFrom(...LISTS), labelSelectorText, fieldSelectorText, fc.constantFrom('label', 'field', 'both', 'delete'),
      async (list, label, field, how) => {
        const q = new URLSearchParams();
        if (how !== 'field') q.set('labelSelector', label);
        if (how === 'field' || how === 'both') q.set('fieldSelector', field);
        if (how === 'delete') {
          q.set('dryRun', 'All');
          await hostile(s, 'DELETE', `${CM}?${q}`);
        } else {
          await hostile(s, 'GET', `${list}?${q}`);
        }
      }), httpRuns(150));
  });

  it('list query parameters with continue tokens', async () => {
    await checkProperty('list-query', fc.asyncProperty(
      fc.constantFrom(...LISTS), listQuery(() => tokens),
      async (list, q) => { await hostile(s, 'GET', `${list}?${q}`); }), httpRuns(150));
  });

  it('continue tokens alone (forged, truncated, bit-flipped, from another resource)', async () => {
    await checkProperty('continue-token', fc.asyncProperty(
      fc.constantFrom(...LISTS), continueToken(() => tokens), fc.constantFrom('', '&limit=1', '&limit=500', '&resourceVersion=0', '&resourceVersion=1&resourceVersionMatch=Exact'),
      async (list, tok, rest) => { await hostile(s, 'GET', `${list}?continue=${encodeURIComponent(tok)}${rest}`); }), httpRuns(100));
  });

  it('raw paths under every method', async () => {
    await checkProperty('paths', fc.asyncProperty(
      fc.constantFrom('GET', 'PUT', 'POST', 'PATCH', 'DELETE', 'OPTIONS'), rawPath,
      fc.constantFrom('', '{}', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}', '[]'),
      async (method, p, body) => {
        // A path that names a watch would be held open: every request carries a short timeout.
        const sep = p.includes('?') ? '&' : '?';
        const headers = method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : undefined;
        await hostile(s, method, `${p}${sep}timeoutSeconds=1`, method === 'GET' || !body ? undefined : body, headers);
      }), httpRuns(200));
  });

  it('object names in bodies and paths', async () => {
    await checkProperty('names', fc.asyncProperty(
      objectName, fc.constantFrom('create', 'get', 'delete', 'put', 'generate'), fc.boolean(),
      async (name, what, encode) => {
        const inPath = encode ? encodeURIComponent(name) : name.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: what === 'generate' ? { generateName: name } : { name }, data: { a: 'b' } });
        if (what === 'create' || what === 'generate') await hostile(s, 'POST', CM, body);
        else if (what === 'put') await hostile(s, 'PUT', `${CM}/${inPath}`, body);
        else if (what === 'get') await hostile(s, 'GET', `${CM}/${inPath}`);
        else await hostile(s, 'DELETE', `${CM}/${inPath}?dryRun=All`);
      }), httpRuns(150));
  });
});

/**
 * Fuzzing every body-taking path through HTTPS against a real etcd: JSON, YAML and protobuf
 * bodies on create and update, the four patch types (JSON, merge, strategic merge with its
 * directives, apply with random managedFields) on built-in kinds, a custom resource and
 * subresources, and DeleteOptions. Each input must get an answer below 500, a Status matching
 * every 4xx, and a refused one must leave the store (read from etcd) exactly as it was; the
 * process answers /livez throughout.
 */
import fc from 'fast-check';
import {
  applyYaml, configMapLikeJson, deleteOptionsText, jsonPatchText, jsonText, mergePatchText, protobufFrame, strategicPatchText, yamlText,
} from './arbitraries';
import { CM, CR_GROUP, CT, expectAlive, PODS, FuzzServer, hostile, SECRETS, startFuzzServer } from './harness';
import { checkProperty, httpRuns } from './fuzz-run';

const PB = 'application/vnd.kubernetes.protobuf';

describe('fuzz: request bodies over HTTPS', function () {
  this.timeout(0);
  let s: FuzzServer;
  before(async () => { s = await startFuzzServer(); });
  after(async () => { await s?.stop(); });
  afterEach(async () => { if (s) await expectAlive(s); });

  it('JSON bodies on create and update (ConfigMap, custom resource)', async () => {
    await checkProperty('json-create-update', fc.asyncProperty(
      fc.constantFrom('POST', 'PUT'), fc.boolean(), configMapLikeJson, jsonText,
      async (method, custom, cmBody, extra) => {
        if (custom) {
          const body = `{"apiVersion":"${CR_GROUP}/v1","kind":"CronTab","metadata":{"name":"ct"},"spec":${extra}}`;
          await hostile(s, method, method === 'POST' ? CT : `${CT}/ct`, body);
        } else {
          await hostile(s, method, method === 'POST' ? CM : `${CM}/cm`, cmBody);
        }
      }), httpRuns(120));
  });

  it('YAML bodies (anchors, aliases, laughs, tags, documents, deep nesting, huge scalars)', async () => {
    await checkProperty('yaml-create', fc.asyncProperty(
      fc.boolean(), yamlText,
      async (asConfigMap, y) => {
        const body = asConfigMap ? `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: fz-\ndata:\n${y.split('\n').map((l) => `  ${l}`).join('\n')}\n` : y;
        await hostile(s, 'POST', CM, body, { 'content-type': 'application/yaml' });
      }), httpRuns(120));
  });

  it('protobuf bodies (random and mutated frames, wrong lengths, nested Unknown)', async () => {
    await checkProperty('protobuf-create-update', fc.asyncProperty(
      fc.constantFrom('POST', 'PUT'), protobufFrame,
      async (method, frame) => {
        await hostile(s, method, method === 'POST' ? CM : `${CM}/pbfz`, frame, { 'content-type': PB });
      }), httpRuns(150));
  });

  const patchTargets = [`${CM}/cm`, `${PODS}/pod`, `${CT}/ct`, `${SECRETS}/secret`, `${CT}/ct/status`, `${CT}/ct/scale`, `${PODS}/pod/status`, `${CM}/absent`];

  it('JSON patches', async () => {
    await checkProperty('json-patch', fc.asyncProperty(
      fc.constantFrom(...patchTargets), jsonPatchText,
      async (target, patch) => {
        await hostile(s, 'PATCH', target, patch, { 'content-type': 'application/json-patch+json' });
      }), httpRuns(120));
  });

  it('merge patches', async () => {
    await checkProperty('merge-patch', fc.asyncProperty(
      fc.constantFrom(...patchTargets), mergePatchText, fc.constantFrom('', '?fieldValidation=Strict', '?fieldValidation=Warn', '?dryRun=All'),
      async (target, patch, q) => {
        await hostile(s, 'PATCH', `${target}${q}`, patch, { 'content-type': 'application/merge-patch+json' });
      }), httpRuns(120));
  });

  it('strategic merge patches with $patch, $retainKeys, $setElementOrder, $deleteFromPrimitiveList', async () => {
    await checkProperty('strategic-merge-patch', fc.asyncProperty(
      fc.constantFrom(...patchTargets), strategicPatchText,
      async (target, patch) => {
        await hostile(s, 'PATCH', target, patch, { 'content-type': 'application/strategic-merge-patch+json' });
      }), httpRuns(120));
  });

  it('apply patches (YAML and JSON, random managedFields, field managers and force)', async () => {
    await checkProperty('apply', fc.asyncProperty(
      fc.constantFrom(['v1', 'ConfigMap', `${CM}/cm`], ['v1', 'ConfigMap', `${CM}/applied`], [`${CR_GROUP}/v1`, 'CronTab', `${CT}/ct`])
        .chain(([apiVersion, kind, target]) => fc.tuple(fc.constant(target), applyYaml(apiVersion, kind, target.split('/').pop()!))),
      fc.constantFrom('?fieldManager=fz', '?fieldManager=fz&force=true', '', '?fieldManager=', `?fieldManager=${'m'.repeat(200)}`, '?fieldManager=fz&force=maybe', '?fieldManager=fz&dryRun=All'),
      async ([target, body], q) => {
        await hostile(s, 'PATCH', `${target}${q}`, body, { 'content-type': 'application/apply-patch+yaml' });
      }), httpRuns(120));
  });

  it('DeleteOptions bodies on delete and deletecollection', async () => {
    await checkProperty('delete-options', fc.asyncProperty(
      fc.constantFrom(`${CM}/absent`, `${CM}/cm?dryRun=All`, `${CM}?dryRun=All&labelSelector=none%3Dnone`, `${CT}/ct?dryRun=All`), deleteOptionsText,
      async (target, body) => {
        const res = await hostile(s, 'DELETE', target, body);
        // A dry run must not delete: the store is unchanged on success as well.
        if (res.status < 300 && /dryRun=All/.test(target)) {
          const left = await s.send('GET', target.split('?')[0].replace(/\/?$/, ''));
          if (target.includes('/cm?') && left.status !== 200) throw new Error(`a dry-run delete removed the object: ${body}`);
        }
      }), httpRuns(120));
  });
});

/**
 * The real kubectl (1.32) with its default validation (no --validate=false): it reads
 * /openapi/v3, finds fieldValidation on the kind's PATCH operation and lets the server validate
 * strictly. Also client-side apply (strategic merge patch from the v3 schema), server-side
 * apply, replace, edit and explain, which read the same documents. In both flavors.
 */
import { expect } from 'chai';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { useKubectlServer } from '../helpers/e2e-server';
import { configMapSchema } from '../../lib/registry/core/configmaps/schema';

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`kubectl with OpenAPI validation (${flavor} flavor)`, function () {
    this.timeout(90_000);
    const e2e = useKubectlServer('openapi', [`--flavor=${flavor}`]);
    const { ok, manifest } = e2e;

    const configMap = (name: string, data: Record<string, string>) =>
      ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

    const dataOf = async (name: string) => JSON.parse((await ok(['get', 'configmap', name, '-n', 'default', '-o', 'jsonpath={.data}'])).stdout);

    it('create -f validates through the server (fieldValidation=Strict) and creates a valid ConfigMap', async () => {
      const r = await ok(['create', '-f', manifest('create.yaml', configMap('created', { a: '1' })), '-v=6']);
      expect(r.stdout.trim()).to.equal('configmap/created created');
      expect(r.stderr).to.match(/GET https:\/\/\S+\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}\S* 200 OK/);
      expect(r.stderr).to.match(/POST https:\/\/\S+\/api\/v1\/namespaces\/default\/configmaps\?\S*fieldValidation=Strict\S* 201 Created/);
      expect(await dataOf('created')).to.deep.equal({ a: '1' });
    });

    it('create -f of a manifest with an unknown field fails with the server\'s strict decoding error', async () => {
      const bad = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'misspelt', namespace: 'default' }, dta: { a: '1' } };
      const r = await e2e.kubectl(['create', '-f', manifest('bad.yaml', bad), '-v=6']);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.match(/POST https:\/\/\S+\/api\/v1\/namespaces\/default\/configmaps\?\S*fieldValidation=Strict\S* 400 Bad Request/);
      expect(r.stderr).to.include('Error from server (BadRequest)');
      expect(r.stderr).to.include('strict decoding error: unknown field "dta"');
      const get = await e2e.kubectl(['get', 'configmap', 'misspelt', '-n', 'default']);
      expect(get.code).to.equal(1);
      expect(get.stderr).to.include('NotFound');
    });

    it('apply -f (client-side) creates, then patches with a strategic merge patch computed from the v3 schema', async () => {
      const file = manifest('apply.yaml', configMap('applied', { a: '1', b: '2' }));
      expect((await ok(['apply', '-f', file])).stdout.trim()).to.equal('configmap/applied created');
      manifest('apply.yaml', configMap('applied', { a: '10' }));
      const r = await ok(['apply', '-f', file, '-v=6']);
      expect(r.stdout.trim()).to.equal('configmap/applied configured');
      expect(r.stderr).to.match(/PATCH https:\/\/\S+\/configmaps\/applied\?\S*fieldValidation=Strict\S* 200 OK/);
      // Computed from v3: kubectl falls back to /openapi/v2 (and then its built-in types) only when v3 fails.
      expect(r.stderr).not.to.match(/warning/i);
      expect(r.stderr).not.to.include('/openapi/v2');
      expect(await dataOf('applied')).to.deep.equal({ a: '10' });
    });

    it('apply -f of a manifest with an unknown field fails', async () => {
      const r = await e2e.kubectl(['apply', '-f', manifest('apply-bad.yaml', { ...configMap('applied', { a: '1' }), dta: { x: 'y' } })]);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.include('strict decoding error: unknown field "dta"');
    });

    it('apply --server-side -f creates and updates', async () => {
      const file = manifest('ssa.yaml', configMap('server-applied', { a: '1' }));
      expect((await ok(['apply', '--server-side', '-f', file])).stdout.trim()).to.equal('configmap/server-applied serverside-applied');
      manifest('ssa.yaml', configMap('server-applied', { a: '2', c: '3' }));
      expect((await ok(['apply', '--server-side', '-f', file])).stdout.trim()).to.equal('configmap/server-applied serverside-applied');
      expect(await dataOf('server-applied')).to.deep.equal({ a: '2', c: '3' });
    });

    it('replace -f replaces', async () => {
      await ok(['create', '-f', manifest('replace.yaml', configMap('replaced', { a: '1' }))]);
      const r = await ok(['replace', '-f', manifest('replace.yaml', configMap('replaced', { z: '26' }))]);
      expect(r.stdout.trim()).to.equal('configmap/replaced replaced');
      expect(await dataOf('replaced')).to.deep.equal({ z: '26' });
    });

    it('edit patches what the editor changed', async () => {
      await ok(['create', '-f', manifest('edit.yaml', configMap('edited', { a: 'before' }))]);
      const editor = path.join(e2e.dir, 'editor.sh');
      writeFileSync(editor, '#!/bin/sh\nsed -i "s/a: before/a: after/" "$1"\n');
      chmodSync(editor, 0o755);
      const edited = await ok(['edit', 'configmap', 'edited', '-n', 'default'], { env: { KUBE_EDITOR: editor } });
      expect(edited.stdout.trim()).to.equal('configmap/edited edited');
      expect(await dataOf('edited')).to.deep.equal({ a: 'after' });
    });

    it('explain configmap.data prints the field\'s type and description from the server\'s schema', async () => {
      const { stdout } = await ok(['explain', 'configmap.data']);
      expect(stdout).to.match(/^KIND:\s+ConfigMap$/m);
      expect(stdout).to.match(/^VERSION:\s+v1$/m);
      expect(stdout).to.include('FIELD: data <map[string]string>');
      expect(stdout).to.include(configMapSchema.properties!.data.description!);
    });

    it('explain secret lists its fields', async () => {
      const { stdout } = await ok(['explain', 'secret']);
      expect(stdout).to.match(/^KIND:\s+Secret$/m);
      const fields = [...stdout.matchAll(/^ {2}(\w+)\t<([^>]+)>/gm)].map((m) => [m[1], m[2]]);
      expect(Object.fromEntries(fields)).to.deep.equal({
        apiVersion: 'string', data: 'map[string]string', immutable: 'boolean', kind: 'string',
        metadata: 'ObjectMeta', stringData: 'map[string]string', type: 'string',
      });
    });

    // kubectl 1.32 reads OpenAPI v2 for explain only when told (--output=plaintext-openapiv2; the
    // KUBECTL_EXPLAIN_OPENAPIV3 variable of 1.26 is gone); it asks for gnostic's protobuf alone.
    it('explain --output=plaintext-openapiv2 reads the protobuf /openapi/v2 (a built-in kind)', async () => {
      const { stdout, stderr } = await ok(['explain', 'configmap.data', '--output=plaintext-openapiv2', '-v=6']);
      expect(stderr).to.match(/GET https:\/\/\S+\/openapi\/v2\S* 200 OK/);
      expect(stdout).to.match(/^KIND:\s+ConfigMap$/m);
      expect(stdout).to.match(/^VERSION:\s+v1$/m);
      expect(stdout).to.match(/^FIELD:\s+data <map\[string\]string>$/m);
      expect(stdout.replace(/\s+/g, ' ')).to.include(configMapSchema.properties!.data.description!.replace(/\s+/g, ' ').slice(0, 60));
      const secret = await ok(['explain', 'secret', '--output=plaintext-openapiv2']);
      expect(secret.stdout).to.match(/^\s+stringData\s+<map\[string\]string>$/m);
    });

    it('explain --output=plaintext-openapiv2 of a custom resource, from the CRD\'s schema in /openapi/v2', async () => {
      const group = 'explain.example.com';
      const crd = {
        apiVersion: `apiextensions.${flavor === 'kubernetes' ? 'k8s' : 'orch'}.io/v1`, kind: 'CustomResourceDefinition', metadata: { name: `crontabs.${group}` },
        spec: {
          group, scope: 'Namespaced', names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
          versions: [{
            name: 'v1', served: true, storage: true,
            schema: { openAPIV3Schema: { type: 'object', description: 'A CronTab runs an image on a schedule.', properties: {
              spec: { type: 'object', description: 'The desired schedule.', properties: { cronSpec: { type: 'string', description: 'The schedule in cron format.' } } },
            } } },
          }],
        },
      };
      await ok(['apply', '-f', manifest('explain-crd.yaml', crd)]);
      await ok(['wait', '--for=condition=Established', `crd/crontabs.${group}`, '--timeout=10s']);
      let out = '';
      for (let i = 0; i < 20 && !out; i++) {
        const r = await e2e.kubectl(['explain', 'crontabs.spec', `--api-version=${group}/v1`, '--output=plaintext-openapiv2']);
        if (r.code === 0) out = r.stdout;
        else await new Promise((res) => setTimeout(res, 500));
      }
      expect(out).to.match(/^KIND:\s+CronTab$/m);
      expect(out).to.match(/^VERSION:\s+explain\.example\.com\/v1$/m);
      expect(out).to.include('The desired schedule.');
      expect(out).to.match(/^\s+cronSpec\s+<string>$/m);
    });
  });
}

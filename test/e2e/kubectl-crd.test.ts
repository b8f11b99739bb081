/**
 * The real kubectl (1.32) and Debian's python3-kubernetes with a CustomResourceDefinition, against
 * the server process in the kubernetes flavor (CRD manifests say `apiextensions.k8s.io/v1`):
 * apply of the CRD and `kubectl wait` for Established, apply of objects (kubectl reads the
 * group's OpenAPI v3 to learn that the server validates, then sends fieldValidation=Strict: a
 * wrong type or an unknown field is refused with Kubernetes' texts), get by plural and short
 * name with the printer columns, explain with the schema's descriptions, edit, server-side apply
 * with a conflict, merge patch (strategic refused), CustomObjectsApi list and watch, and
 * `kubectl delete crd` waiting until the objects and the CRD are gone. A last suite runs the
 * same CRD in the orch flavor (`apiextensions.orch.io/v1`): nothing kubectl does here depends on
 * the k8s.io spelling but the manifests.
 */
import { expect } from 'chai';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KubectlServer, useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';
import { spawnLines } from '../helpers/line-process';
import { requirePythonKubernetes, PYTHON } from '../helpers/python-kubernetes';

type Obj = Record<string, any>;
const GROUP = 'stable.example.com';
const CRD_NAME = `crontabs.${GROUP}`;
const SCRIPT = path.resolve(__dirname, '../../../test/e2e/python/custom_objects.py');

/** Kubernetes' CronTab example with columns (one wide-only), a short name, a category and described fields. */
function cronTabCrd(apiextensions: string): Obj {
  return {
    apiVersion: `${apiextensions}/v1`, kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
    spec: {
      group: GROUP, scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: [{
        name: 'v1', served: true, storage: true,
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec', description: 'The cron spec defining the interval a CronJob is run' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Image', type: 'string', jsonPath: '.spec.image', priority: 1 },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object', description: 'A CronTab runs an image on a schedule.',
            properties: {
              spec: {
                type: 'object', description: 'The desired schedule and image.',
                properties: {
                  cronSpec: { type: 'string', description: 'The schedule in cron format.' },
                  image: { type: 'string', description: 'The image to run.' },
                  replicas: { type: 'integer', minimum: 1, description: 'How many copies run at once.' },
                },
              },
            },
          },
        },
      }],
    },
  };
}

const cronTab = (name: string, spec: Obj, namespace = 'default', extra: Obj = {}): Obj =>
  ({ apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name, namespace, ...extra }, spec });

/** Applies the CRD and waits for Established with `kubectl wait`. */
async function installCrd(e2e: KubectlServer, apiextensions: string): Promise<string> {
  const res = await e2e.ok(['apply', '-f', e2e.manifest('crd.yaml', cronTabCrd(apiextensions))]);
  await e2e.ok(['wait', '--for=condition=Established', `crd/${CRD_NAME}`, '--timeout=10s']);
  return res.stdout.trim();
}

describe('kubectl with a CustomResourceDefinition (kubernetes flavor)', function () {
  this.timeout(120_000);
  const e2e = useKubectlServer('kubectl-crd', ['--flavor=kubernetes']);
  const getJson = async (args: string[]): Promise<Obj> => JSON.parse((await e2e.ok(['get', ...args, '-o', 'json', '--show-managed-fields'])).stdout);

  it('applies the CRD, which becomes Established and is listed by `kubectl get crd`', async () => {
    expect(await installCrd(e2e, 'apiextensions.k8s.io')).to.equal(`customresourcedefinition.apiextensions.k8s.io/${CRD_NAME} created`);
    const table = parseTable((await e2e.ok(['get', 'crd'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'CREATED', 'AT']);
    expect(table.rows.map((r) => r.NAME)).to.deep.equal([CRD_NAME]);
    const crd = await getJson(['crd', CRD_NAME]);
    expect(crd.status.acceptedNames).to.deep.include({ plural: 'crontabs', kind: 'CronTab', shortNames: ['ct'] });
  });

  it('applies objects; kubectl checks the OpenAPI and the server refuses a wrong type or an unknown field', async () => {
    const first = await e2e.ok(['apply', '-f', e2e.manifest('ct1.yaml', cronTab('my-cron', { cronSpec: '* * * * */5', image: 'my-awesome-cron-image', replicas: 2 }))]);
    expect(first.stdout.trim()).to.equal(`crontab.${GROUP}/my-cron created`);
    await e2e.ok(['apply', '-f', e2e.manifest('ct2.yaml', cronTab('nightly', { cronSpec: '0 3 * * *', image: 'backup', replicas: 1 }))]);

    // kubectl 1.32 validates client-side only when the group's OpenAPI v3 lacks fieldValidation;
    // it finds it, so it asks the server for Strict validation, as against kube-apiserver.
    const wrongType = await e2e.fails(['apply', '-v=6', '-f', e2e.manifest('bad.yaml', cronTab('bad-cron', { cronSpec: '* * * * */5', replicas: 'two' }))]);
    expect(wrongType.stderr).to.match(new RegExp(`GET https://\\S+/openapi/v3/apis/${GROUP.replace(/\./g, '\\.')}/v1\\?hash=[0-9A-F]+\\S* 200 OK`));
    expect(wrongType.stderr).to.match(/POST https:\/\/\S+\/crontabs\?fieldManager=kubectl-client-side-apply&fieldValidation=Strict 422/);
    expect(wrongType.stderr).to.include('The CronTab "bad-cron" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"');
    const unknown = await e2e.fails(['create', '-f', e2e.manifest('unknown.yaml', cronTab('odd-cron', { cronSpec: '* * * * */5', colour: 'red' }))]);
    expect(unknown.stderr.trim()).to.equal('Error from server (BadRequest): error when creating "' + path.join(e2e.dir, 'unknown.yaml')
      + '": CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.colour"');
    const below = await e2e.fails(['create', '-f', e2e.manifest('zero.yaml', cronTab('zero-cron', { cronSpec: '* * * * */5', replicas: 0 }))]);
    expect(below.stderr).to.include('The CronTab "zero-cron" is invalid: spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1');
    expect((await getJson(['crontabs'])).items.map((o: Obj) => o.metadata.name)).to.deep.equal(['my-cron', 'nightly']);
  });

  it('gets by plural, singular and short name with the printer columns (wide adds priority columns)', async () => {
    const byPlural = parseTable((await e2e.ok(['get', 'crontabs'])).stdout);
    expect(byPlural.columns).to.deep.equal(['NAME', 'SPEC', 'REPLICAS', 'AGE']);
    expect(byPlural.rows.map(({ NAME, SPEC, REPLICAS }) => [NAME, SPEC, REPLICAS])).to.deep.equal([
      ['my-cron', '* * * * */5', '2'], ['nightly', '0 3 * * *', '1'],
    ]);
    expect(byPlural.rows[0].AGE).to.match(/^\d+s$/);
    const noAge = (t: ReturnType<typeof parseTable>) => [t.columns, t.rows.map(({ AGE: _age, ...r }) => r)];
    for (const name of ['ct', 'crontab', `crontabs.${GROUP}`]) {
      expect(noAge(parseTable((await e2e.ok(['get', name])).stdout)), name).to.deep.equal(noAge(byPlural));
    }
    const wide = parseTable((await e2e.ok(['get', 'ct', 'my-cron', '-o', 'wide'])).stdout);
    expect(wide.columns).to.deep.equal(['NAME', 'SPEC', 'REPLICAS', 'IMAGE', 'AGE']);
    expect(wide.rows[0].IMAGE).to.equal('my-awesome-cron-image');
    const all = parseTable((await e2e.ok(['get', 'ct', '-A'])).stdout);
    expect(all.columns).to.deep.equal(['NAMESPACE', 'NAME', 'SPEC', 'REPLICAS', 'AGE']);
    // The category `all` brings them into `kubectl get all`.
    expect((await e2e.ok(['get', 'all'])).stdout).to.include(`crontab.${GROUP}/my-cron`);
  });

  it('explains the kind and its fields from the schema descriptions', async () => {
    const kind = (await e2e.ok(['explain', 'crontab'])).stdout;
    expect(kind).to.include(`GROUP:      ${GROUP}\nKIND:       CronTab\nVERSION:    v1`);
    expect(kind).to.include('DESCRIPTION:\n    A CronTab runs an image on a schedule.');
    const spec = (await e2e.ok(['explain', 'crontab.spec'])).stdout;
    // Inline, as Kubernetes writes a custom resource's schema: no named type for spec.
    expect(spec).to.include('FIELD: spec <Object>');
    expect(spec).to.include('DESCRIPTION:\n    The desired schedule and image.');
    expect(spec).to.include('  cronSpec\t<string>\n    The schedule in cron format.');
    expect(spec).to.include('  image\t<string>\n    The image to run.');
    expect(spec).to.include('  replicas\t<integer>\n    How many copies run at once.');
    const field = (await e2e.ok(['explain', 'ct.spec.replicas'])).stdout;
    expect(field).to.include('FIELD: replicas <integer>');
    expect(field).to.include('How many copies run at once.');
  });

  it('edits with EDITOR set to a script', async () => {
    const editor = path.join(e2e.dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i \'s/^  image: my-awesome-cron-image$/  image: edited-image/\' "$1"\n', { mode: 0o755 });
    const res = await e2e.ok(['edit', 'ct', 'my-cron'], { env: { EDITOR: editor, KUBE_EDITOR: editor } });
    expect(res.stdout.trim()).to.equal(`crontab.${GROUP}/my-cron edited`);
    const after = await getJson(['ct', 'my-cron']);
    expect(after.spec).to.deep.equal({ cronSpec: '* * * * */5', image: 'edited-image', replicas: 2 });
    const entry = after.metadata.managedFields.find((m: Obj) => m.manager === 'kubectl-edit');
    expect(entry).to.include({ operation: 'Update', apiVersion: `${GROUP}/v1` });
    expect(entry.fieldsV1['f:spec']).to.have.property('f:image');
    // A wrong type typed in the editor is refused by the server: kubectl keeps the copy with the causes on top.
    const breaker = path.join(e2e.dir, 'breaker.sh');
    writeFileSync(breaker, '#!/bin/sh\nsed -i \'s/^  replicas: 2$/  replicas: many/\' "$1"\n', { mode: 0o755 });
    const refused = await e2e.fails(['edit', 'ct', 'my-cron'], { env: { EDITOR: breaker, KUBE_EDITOR: breaker } });
    expect(refused.stderr).to.include(`error: crontabs.${GROUP} "my-cron" is invalid`);
    const copy = /A copy of your changes has been stored to "([^"]+)"/.exec(refused.stderr)?.[1];
    expect(copy, refused.stderr).to.be.a('string');
    const saved = readFileSync(copy as string, 'utf8');
    rmSync(copy as string, { force: true });
    expect(saved).to.include(`# crontabs.${GROUP} "my-cron" was not valid:\n# * spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`);
    expect((await getJson(['ct', 'my-cron'])).spec.replicas).to.equal(2);
  });

  it('applies server-side, with a conflict between two managers', async () => {
    const file = e2e.manifest('ssa.yaml', cronTab('ssa-cron', { cronSpec: '0 * * * *', image: 'ssa-image', replicas: 3 }));
    expect((await e2e.ok(['apply', '--server-side', '-f', file])).stdout.trim()).to.equal(`crontab.${GROUP}/ssa-cron serverside-applied`);
    const applied = await getJson(['ct', 'ssa-cron']);
    expect(applied.metadata.managedFields.map((m: Obj) => [m.manager, m.operation])).to.deep.equal([['kubectl', 'Apply']]);
    const other = e2e.manifest('ssa-other.yaml', cronTab('ssa-cron', { replicas: 4 }));
    const conflict = await e2e.fails(['apply', '--server-side', '--field-manager=other', '-f', other]);
    // An Apply manager is named alone (an Update one with "using <apiVersion>").
    expect(conflict.stderr).to.include('error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    await e2e.ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other]);
    const forced = await getJson(['ct', 'ssa-cron']);
    expect(forced.spec).to.deep.equal({ cronSpec: '0 * * * *', image: 'ssa-image', replicas: 4 });
    expect(forced.metadata.managedFields.find((m: Obj) => m.manager === 'other').fieldsV1).to.deep.equal({ 'f:spec': { 'f:replicas': {} } });
  });

  it('patches with --type merge; a strategic merge patch is refused as for any custom resource', async () => {
    const res = await e2e.ok(['patch', 'ct', 'nightly', '--type', 'merge', '-p', '{"spec":{"replicas":5,"image":null}}']);
    expect(res.stdout.trim()).to.equal(`crontab.${GROUP}/nightly patched`);
    expect((await getJson(['ct', 'nightly'])).spec).to.deep.equal({ cronSpec: '0 3 * * *', replicas: 5 });
    const strategic = await e2e.fails(['patch', 'ct', 'nightly', '--type', 'strategic', '-p', '{"spec":{"replicas":6}}']);
    expect(strategic.stderr.trim()).to.equal(`error: application/strategic-merge-patch+json is not supported by ${GROUP}/v1, Kind=CronTab: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
    // kubectl's default patch type is strategic, for custom resources too: refused the same way.
    const byDefault = await e2e.fails(['patch', 'ct', 'nightly', '-p', '{"spec":{"replicas":6}}']);
    expect(byDefault.stderr.trim()).to.equal(strategic.stderr.trim());
    expect((await getJson(['ct', 'nightly'])).spec.replicas).to.equal(5);
  });

  it('python3-kubernetes CustomObjectsApi lists the custom objects, then watches them from the list', async function () {
    await requirePythonKubernetes();
    await e2e.ok(['create', 'namespace', 'py']);
    await e2e.ok(['apply', '-f', e2e.manifest('py1.yaml', cronTab('listed', { cronSpec: '1 * * * *', replicas: 1 }, 'py'))]);
    const script = spawnLines(PYTHON, [SCRIPT, '--kubeconfig', e2e.server.kubeconfigPath, '--group', GROUP, '--version', 'v1',
      '--namespace', 'py', '--plural', 'crontabs', '--run-seconds', '30']);
    try {
      const parsed = () => script.lines.map((l) => JSON.parse(l) as Obj);
      await script.waitFor((lines) => lines.length >= 1, 'the list');
      expect(parsed()[0]).to.deep.include({ type: 'LISTED', items: [{ name: 'listed', kind: 'CronTab', spec: { cronSpec: '1 * * * *', replicas: 1 } }] });

      await e2e.ok(['apply', '-f', e2e.manifest('py2.yaml', cronTab('watched', { cronSpec: '2 * * * *', replicas: 2 }, 'py'))]);
      await e2e.ok(['patch', 'ct', 'watched', '-n', 'py', '--type', 'merge', '-p', '{"spec":{"replicas":3}}']);
      await e2e.ok(['delete', 'ct', 'listed', '-n', 'py']);
      await script.waitFor((lines) => lines.length >= 4, 'three events');
      expect(parsed().slice(1).map((l) => [l.type, l.name, l.kind, l.spec.replicas])).to.deep.equal([
        ['ADDED', 'watched', 'CronTab', 2], ['MODIFIED', 'watched', 'CronTab', 3], ['DELETED', 'listed', 'CronTab', 1],
      ]);
    } finally {
      await script.stop();
    }
  });

  it('deletes the CRD, waiting until its objects (one held by a finalizer) and the CRD are gone', async () => {
    await e2e.ok(['apply', '-f', e2e.manifest('held.yaml', cronTab('held', { cronSpec: '* * * * *' }, 'default', { finalizers: ['example.com/hold'] }))]);
    let finished = false;
    const deleting = e2e.kubectl(['delete', 'crd', CRD_NAME], { timeoutMs: 60_000 }).then((r) => { finished = true; return r; });
    const terminating = async () => {
      for (let i = 0; i < 100; i++) {
        const crd = await getJson(['crd', CRD_NAME]);
        const cond = (crd.status.conditions ?? []).find((c: Obj) => c.type === 'Terminating');
        if (cond?.reason === 'InstanceDeletionInProgress') return cond;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the CRD never reported InstanceDeletionInProgress');
    };
    expect(await terminating()).to.deep.include({ status: 'True', message: 'CustomResource deletion is in progress' });
    // Every object but the held one is gone; kubectl is still waiting.
    const left = await getJson(['ct', '-A']);
    expect(left.items.map((o: Obj) => o.metadata.name)).to.deep.equal(['held']);
    expect(finished).to.equal(false);
    const create = await e2e.fails(['create', '-f', e2e.manifest('late.yaml', cronTab('late', { cronSpec: '* * * * *' }))]);
    expect(create.stderr).to.include(`Error from server (Forbidden): error when creating "${path.join(e2e.dir, 'late.yaml')}": crontabs.${GROUP} "late" is forbidden: create not allowed while custom resource definition is terminating`);

    await e2e.ok(['patch', 'ct', 'held', '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
    const res = await deleting;
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout.trim()).to.equal(`customresourcedefinition.apiextensions.k8s.io "${CRD_NAME}" deleted`);
    expect((await e2e.ok(['get', 'crd'])).stderr.trim()).to.equal('No resources found');
    const apiResources = (await e2e.ok(['api-resources', `--api-group=${GROUP}`])).stdout;
    expect(apiResources).to.not.include('crontabs');
  });
});

describe('kubectl with a CustomResourceDefinition (orch flavor)', function () {
  this.timeout(60_000);
  const e2e = useKubectlServer('kubectl-crd-orch');

  it('applies, serves, explains and deletes the CRD under apiextensions.orch.io', async () => {
    expect(await installCrd(e2e, 'apiextensions.orch.io')).to.equal(`customresourcedefinition.apiextensions.orch.io/${CRD_NAME} created`);
    await e2e.ok(['apply', '-f', e2e.manifest('ct.yaml', cronTab('my-cron', { cronSpec: '* * * * */5', replicas: 2 }))]);
    expect(parseTable((await e2e.ok(['get', 'ct'])).stdout).columns).to.deep.equal(['NAME', 'SPEC', 'REPLICAS', 'AGE']);
    expect((await e2e.ok(['explain', 'ct.spec'])).stdout).to.include('The desired schedule and image.');
    expect((await e2e.ok(['get', 'crds'])).stdout).to.include(CRD_NAME);
    const res = await e2e.ok(['delete', 'crd', CRD_NAME], { timeoutMs: 60_000 });
    expect(res.stdout.trim()).to.equal(`customresourcedefinition.apiextensions.orch.io "${CRD_NAME}" deleted`);
    expect((await e2e.ok(['get', 'crd'])).stderr.trim()).to.equal('No resources found');
  });
});

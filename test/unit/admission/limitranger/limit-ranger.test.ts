/**
 * LimitRanger as Kubernetes 1.32's plugin/pkg/admission/limitranger, table-driven: an input pod
 * or claim and the namespace's LimitRanges, and either the object after admission (defaults and
 * the kubernetes.io/limit-ranger annotation) or the exact 403 message. Containers, init
 * containers, sidecars, pod totals, pod overhead (which 1.32 does not count), claims,
 * maxLimitRequestRatio, several violations at once, and the attributes the plugin skips.
 */
import { expect } from 'chai';
import { limitRangerPlugin } from '../../../../lib/admission/limitranger/plugin';
import { ApiObject, ResourceDef } from '../../../../lib/scheme/types';
import { AdmissionAttributes } from '../../../../lib/registry/admission-attributes';
import { podAttrs, rejection } from '../pod-plugin-attrs';

type Body = Record<string, any>;
const CLAIMS = { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true } as ResourceDef;

const lr = (name: string, ...limits: Body[]): ApiObject => ({ metadata: { name, namespace: 'team' }, spec: { limits } });
const container = (name: string, resources?: Body, extra: Body = {}): Body => ({ name, image: 'nginx', ...(resources ? { resources } : {}), ...extra });
const podWith = (spec: Body): ApiObject => ({ metadata: { name: 'web', namespace: 'team' }, spec });
const claim = (storage?: string): ApiObject => ({
  metadata: { name: 'data', namespace: 'team' },
  spec: { accessModes: ['ReadWriteOnce'], resources: storage ? { requests: { storage } } : {} },
});

const plugin = (ranges: ApiObject[]) => limitRangerPlugin({ forNamespace: async () => ranges });

/** Both phases in order, as the chain runs them. */
async function admit(ranges: ApiObject[], a: AdmissionAttributes): Promise<AdmissionAttributes> {
  const p = plugin(ranges);
  await p.admit!(a);
  await p.validate!(a);
  return a;
}

const CONTAINER_DEFAULTS = { type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } };

describe('LimitRanger admission (Kubernetes 1.32)', () => {
  describe('defaults (admit)', () => {
    const rows: Array<[string, ApiObject[], Body, Body, string | undefined]> = [
      ['containers and init containers get the default requests and limits', [lr('defaults', CONTAINER_DEFAULTS)],
        { containers: [container('app')], initContainers: [container('init')] },
        {
          containers: [container('app', { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } })],
          initContainers: [container('init', { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } })],
        },
        'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; '
          + 'cpu, memory request for init container init; cpu, memory limit for init container init'],
      ['what a container sets is kept; only the missing resources are filled', [lr('defaults', CONTAINER_DEFAULTS)],
        { containers: [container('app', { limits: { cpu: '1' }, requests: { cpu: '1' } })] },
        { containers: [container('app', { limits: { cpu: '1', memory: '256Mi' }, requests: { cpu: '1', memory: '128Mi' } })] },
        'LimitRanger plugin set: memory request for container app; memory limit for container app'],
      ['a container with every resource set is left alone, without annotation', [lr('defaults', CONTAINER_DEFAULTS)],
        { containers: [container('app', { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } })] },
        { containers: [container('app', { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } })] },
        undefined],
      ['a default limit without a default request sets the limit only', [lr('limit-only', { type: 'Container', default: { memory: '1Gi' } })],
        { containers: [container('app')] },
        { containers: [container('app', { limits: { memory: '1Gi' } })] },
        'LimitRanger plugin set: memory limit for container app'],
      ['Pod and PersistentVolumeClaim items set no defaults', [lr('bounds', { type: 'Pod', max: { cpu: '4' } }, { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } })],
        { containers: [container('app', { limits: { cpu: '1' } })] },
        { containers: [container('app', { limits: { cpu: '1' } })] },
        undefined],
    ];
    for (const [what, ranges, spec, want, annotation] of rows) {
      it(what, async () => {
        const a = await admit(ranges, podAttrs(podWith(spec)));
        expect(a.object!.spec).to.deep.equal(want);
        expect(a.object!.metadata?.annotations?.['kubernetes.io/limit-ranger']).to.equal(annotation);
      });
    }
  });

  describe('refusals (validate): 403 with Kubernetes\' sentences', () => {
    const cpu = (limit?: string, request?: string): Body => ({ ...(limit ? { limits: { cpu: limit } } : {}), ...(request ? { requests: { cpu: request } } : {}) });
    const rows: Array<[string, ApiObject[], Body, string]> = [
      ['a container over the max', [lr('max', { type: 'Container', max: { cpu: '1' } })],
        { containers: [container('app', cpu('2', '500m'))] },
        'maximum cpu usage per Container is 1, but limit is 2'],
      ['a request over the max', [lr('max', { type: 'Container', max: { cpu: '1' } })],
        { containers: [container('app', cpu('1', '1500m'))] },
        'maximum cpu usage per Container is 1, but request is 1500m'],
      ['a container under the min', [lr('min', { type: 'Container', min: { memory: '64Mi' } })],
        { containers: [container('app', { requests: { memory: '32Mi' } })] },
        'minimum memory usage per Container is 64Mi, but request is 32Mi'],
      ['a limit under the min', [lr('min', { type: 'Container', min: { cpu: '200m' } })],
        { containers: [container('app', cpu('100m', '300m'))] },
        'minimum cpu usage per Container is 200m, but limit is 100m'],
      ['no limit under a max', [lr('max', { type: 'Container', max: { memory: '1Gi' } })],
        { containers: [container('app')] },
        'maximum memory usage per Container is 1Gi.  No limit is specified'],
      ['no request under a min', [lr('min', { type: 'Container', min: { cpu: '100m' } })],
        { containers: [container('app')] },
        'minimum cpu usage per Container is 100m.  No request is specified'],
      ['an init container over the max', [lr('max', { type: 'Container', max: { cpu: '1' } })],
        { containers: [container('app', cpu('1', '1'))], initContainers: [container('init', cpu('3', '1'))] },
        'maximum cpu usage per Container is 1, but limit is 3'],
      ['a limit/request ratio over maxLimitRequestRatio', [lr('ratio', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } })],
        { containers: [container('app', cpu('1', '250m'))] },
        'cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000'],
      ['a fractional ratio', [lr('ratio', { type: 'Container', maxLimitRequestRatio: { cpu: '1500m' } })],
        { containers: [container('app', cpu('1', '600m'))] },
        'cpu max limit to request ratio per Container is 1500m, but provided ratio is 1.666667'],
      ['a ratio without a request', [lr('ratio', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } })],
        { containers: [container('app', { limits: { memory: '1Gi' } })] },
        'cpu max limit to request ratio per Container is 2, but no request is specified or request is 0'],
      ['a ratio without a limit', [lr('ratio', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } })],
        { containers: [container('app', cpu(undefined, '1'))] },
        'cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0'],
      ['the sum of the containers over a Pod max', [lr('pod', { type: 'Pod', max: { cpu: '2' } })],
        { containers: [container('a', cpu('1500m', '1')), container('b', cpu('1', '500m'))] },
        'maximum cpu usage per Pod is 2, but limit is 2500m'],
      ['an init container larger than the containers\' sum over a Pod max', [lr('pod', { type: 'Pod', max: { cpu: '2' } })],
        { containers: [container('a', cpu('1', '1'))], initContainers: [container('init', cpu('3', '1'))] },
        'maximum cpu usage per Pod is 2, but limit is 3'],
      ['a sidecar counted with the containers', [lr('pod', { type: 'Pod', max: { cpu: '2' } })],
        { containers: [container('a', cpu('1500m', '1'))], initContainers: [container('proxy', cpu('1', '100m'), { restartPolicy: 'Always' })] },
        'maximum cpu usage per Pod is 2, but limit is 2500m'],
      ['an init container with the sidecars started before it', [lr('pod', { type: 'Pod', max: { cpu: '2' } })],
        {
          containers: [container('a', cpu('500m', '100m'))],
          initContainers: [container('proxy', cpu('1', '100m'), { restartPolicy: 'Always' }), container('migrate', cpu('1500m', '100m'))],
        },
        'maximum cpu usage per Pod is 2, but limit is 2500m'],
      ['the pod\'s requests under a Pod min', [lr('pod', { type: 'Pod', min: { memory: '1Gi' } })],
        { containers: [container('a', { requests: { memory: '256Mi' } }), container('b', { requests: { memory: '512Mi' } })] },
        'minimum memory usage per Pod is 1Gi, but request is 768Mi'],
      ['several violations at once, in Kubernetes\' order', [lr('many', { type: 'Container', min: { cpu: '100m' }, max: { cpu: '1', memory: '1Gi' } })],
        { containers: [container('app', cpu('2', '50m'))] },
        '[minimum cpu usage per Container is 100m, but request is 50m, maximum cpu usage per Container is 1, but limit is 2, '
          + 'maximum memory usage per Container is 1Gi.  No limit is specified]'],
      ['the same violation by two containers is reported once', [lr('max', { type: 'Container', max: { cpu: '1' } })],
        { containers: [container('a', cpu('2', '1')), container('b', cpu('2', '1'))] },
        'maximum cpu usage per Container is 1, but limit is 2'],
      ['the first LimitRange violated answers', [lr('first', { type: 'Container', max: { cpu: '1' } }), lr('second', { type: 'Container', max: { cpu: '500m' } })],
        { containers: [container('app', cpu('2', '1'))] },
        'maximum cpu usage per Container is 1, but limit is 2'],
      ['a second LimitRange is enforced too', [lr('first', { type: 'Container', max: { cpu: '4' } }), lr('second', { type: 'Container', max: { cpu: '500m' } })],
        { containers: [container('app', cpu('2', '1'))] },
        'maximum cpu usage per Container is 500m, but limit is 2'],
    ];
    for (const [what, ranges, spec, message] of rows) {
      it(what, async () => {
        const err = await rejection(() => admit(ranges, podAttrs(podWith(spec))));
        expect(err.code).to.equal(403);
        expect(err.reason).to.equal('Forbidden');
        expect(err.message).to.equal(`pods "web" is forbidden: ${message}`);
      });
    }
  });

  describe('admitted', () => {
    it('a pod within every bound, after its defaults', async () => {
      const ranges = [lr('all', { type: 'Container', min: { cpu: '50m' }, max: { cpu: '1' }, default: { cpu: '500m' }, defaultRequest: { cpu: '100m' }, maxLimitRequestRatio: { cpu: '10' } },
        { type: 'Pod', max: { cpu: '2' } })];
      const a = await admit(ranges, podAttrs(podWith({ containers: [container('a'), container('b')] })));
      expect((a.object!.spec as Body).containers.map((c: Body) => c.resources)).to.deep.equal([
        { limits: { cpu: '500m' }, requests: { cpu: '100m' } }, { limits: { cpu: '500m' }, requests: { cpu: '100m' } },
      ]);
    });

    it('spec.overhead is not counted in Pod totals (Kubernetes 1.32 sums the containers only)', async () => {
      const ranges = [lr('pod', { type: 'Pod', max: { cpu: '2' } })];
      await admit(ranges, podAttrs(podWith({ containers: [container('a', { limits: { cpu: '2' }, requests: { cpu: '1' } })], overhead: { cpu: '1' } })));
    });

    it('a container without a limit adds nothing to the Pod total', async () => {
      const ranges = [lr('pod', { type: 'Pod', max: { cpu: '4' } })];
      await admit(ranges, podAttrs(podWith({ containers: [container('a', { limits: { cpu: '3' }, requests: { cpu: '1' } }), container('b')] })));
    });

    it('a namespace without LimitRanges changes nothing', async () => {
      const a = await admit([], podAttrs(podWith({ containers: [container('app')] })));
      expect(a.object!.spec).to.deep.equal({ containers: [container('app')] });
      expect(a.object!.metadata?.annotations).to.equal(undefined);
    });
  });

  describe('claims (PersistentVolumeClaim items)', () => {
    const ranges = [lr('storage', { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } })];
    const claimAttrs = (c: ApiObject, operation: 'CREATE' | 'UPDATE' = 'CREATE', old?: ApiObject) => ({ ...podAttrs(c, { resource: CLAIMS, operation, old }), name: 'data' });
    const rows: Array<[string, string | undefined, string]> = [
      ['over the max', '20Gi', 'maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi'],
      ['under the min', '500Mi', 'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi'],
      ['without a request', undefined, '[minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, '
        + 'maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified]'],
    ];
    for (const [what, storage, message] of rows) {
      it(`refuses a claim ${what}`, async () => {
        const err = await rejection(() => admit(ranges, claimAttrs(claim(storage))));
        expect(err.code).to.equal(403);
        expect(err.message).to.equal(`persistentvolumeclaims "data" is forbidden: ${message}`);
      });
    }

    it('admits a claim within the bounds, unchanged', async () => {
      const a = await admit(ranges, claimAttrs(claim('5Gi')));
      expect(a.object).to.deep.equal(claim('5Gi'));
    });

    it('checks a claim update too (a resize past the max)', async () => {
      const err = await rejection(() => admit(ranges, claimAttrs(claim('11Gi'), 'UPDATE', claim('5Gi'))));
      expect(err.message).to.equal('persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 11Gi');
    });
  });

  describe('what the plugin skips', () => {
    const strict = [lr('max', { type: 'Container', max: { cpu: '1' } })];
    const tooBig = podWith({ containers: [container('app', { limits: { cpu: '2' }, requests: { cpu: '2' } })] });
    it('pod updates (containers cannot change)', async () => {
      await admit(strict, podAttrs(tooBig, { operation: 'UPDATE', old: tooBig }));
    });
    it('subresources', async () => {
      await admit(strict, podAttrs(tooBig, { subresource: 'status', operation: 'UPDATE', old: tooBig }));
    });
    it('claims already marked for deletion', async () => {
      const old = claim('20Gi');
      old.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
      await admit([lr('storage', { type: 'PersistentVolumeClaim', max: { storage: '10Gi' } })], { ...podAttrs(claim('20Gi'), { resource: CLAIMS, operation: 'UPDATE', old }), name: 'data' });
    });
  });
});

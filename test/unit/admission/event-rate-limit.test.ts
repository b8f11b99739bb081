/**
 * EventRateLimit (lib/admission/eventratelimit/): its configuration read and validated with
 * Kubernetes' messages, the token bucket (burst, then qps refill), the LRU of buckets, the keys of
 * each limit type, and which requests are counted (core Event creates and updates only).
 */
import { expect } from 'chai';
import { readEventRateLimitConfig } from '../../../lib/admission/eventratelimit/config';
import { BucketCache, TokenBucket } from '../../../lib/admission/eventratelimit/token-bucket';
import { eventRateLimit, sourceAndObjectKey } from '../../../lib/admission/eventratelimit/event-rate-limit';
import { AdmissionAttributes, Operation } from '../../../lib/registry/admission-attributes';
import { ApiObject, ResourceDef } from '../../../lib/scheme/types';
import { rejection } from './pod-plugin-attrs';

const CONFIG = 'eventratelimit.admission.k8s.io/v1alpha1';
const config = (limits: unknown) => ({ apiVersion: CONFIG, kind: 'Configuration', limits });
const problem = (raw: unknown): string => {
  try {
    readEventRateLimitConfig(raw);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
};

const CORE_EVENTS = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true } as ResourceDef;
const V1_EVENTS = { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true } as ResourceDef;

function attrs(opts: { namespace?: string; user?: string; operation?: Operation; resource?: ResourceDef; object?: ApiObject } = {}): AdmissionAttributes {
  const namespace = opts.namespace ?? 'ns';
  return {
    operation: opts.operation ?? 'CREATE', resource: opts.resource ?? CORE_EVENTS, namespace, name: 'e',
    object: opts.object ?? { metadata: { name: 'e' } }, dryRun: false,
    ctx: { namespace, user: { name: opts.user ?? 'alice', groups: [] } },
  };
}

describe('EventRateLimit', () => {
  describe('configuration', () => {
    it('reads the limits, with cacheSize 0 left for the default', () => {
      expect(readEventRateLimitConfig(config([{ type: 'Server', qps: 1, burst: 3 }, { type: 'Namespace', qps: 5, burst: 10, cacheSize: 20 }]))).to.deep.equal([
        { type: 'Server', qps: 1, burst: 3, cacheSize: 0 }, { type: 'Namespace', qps: 5, burst: 10, cacheSize: 20 },
      ]);
      expect(readEventRateLimitConfig({ ...config([{ type: 'User', qps: 1, burst: 1 }]), apiVersion: 'eventratelimit.admission.orch.io/v1alpha1' })).to.have.length(1);
    });

    const rows: Array<[string, unknown, string]> = [
      ['no configuration', undefined, 'limits: Invalid value: []eventratelimit.Limit(nil): must not be empty'],
      ['an empty list', config([]), 'limits: Invalid value: []eventratelimit.Limit{}: must not be empty'],
      ['an unknown type', config([{ type: 'Pod', qps: 1, burst: 1 }]), 'limits[0].type: Unsupported value: "Pod": supported values: "Server", "Namespace", "User", "SourceAndObject"'],
      ['burst 0', config([{ type: 'Server', qps: 1, burst: 0 }]), 'limits[0].burst: Invalid value: 0: must be positive'],
      ['negative qps', config([{ type: 'Server', qps: -1, burst: 1 }]), 'limits[0].qps: Invalid value: -1: must be positive'],
      ['a negative cacheSize', config([{ type: 'User', qps: 1, burst: 1, cacheSize: -2 }]), 'limits[0].cacheSize: Invalid value: -2: must not be negative'],
      ['two problems, as Go aggregates them', config([{ type: 'Server', qps: 0, burst: 0 }]),
        '[limits[0].burst: Invalid value: 0: must be positive, limits[0].qps: Invalid value: 0: must be positive]'],
      ['another kind', { apiVersion: CONFIG, kind: 'Other', limits: [] }, `expected kind Configuration of eventratelimit.admission.orch.io/v1alpha1, got "Other" of "${CONFIG}"`],
    ];
    rows.forEach(([what, raw, message]) => {
      it(`refuses ${what}`, () => expect(problem(raw)).to.equal(message));
    });

    it('lets a Server limit have a negative cacheSize (not looked at)', () => {
      expect(problem(config([{ type: 'Server', qps: 1, burst: 1, cacheSize: -1 }]))).to.equal('');
    });
  });

  describe('token bucket', () => {
    it('gives burst tokens at once, then qps a second up to burst', () => {
      let now = 0;
      const b = new TokenBucket(2, 3, () => now);
      expect([b.tryAccept(), b.tryAccept(), b.tryAccept(), b.tryAccept()]).to.deep.equal([true, true, true, false]);
      now = 499;
      expect(b.tryAccept()).to.equal(false);
      now = 500;
      expect([b.tryAccept(), b.tryAccept()]).to.deep.equal([true, false]);
      now = 60_000;
      expect([b.tryAccept(), b.tryAccept(), b.tryAccept(), b.tryAccept()]).to.deep.equal([true, true, true, false]);
    });

    it('keeps at most size buckets, dropping the least recently used', () => {
      let made = 0;
      const cache = new BucketCache(2, () => { made++; return new TokenBucket(1, 1, () => 0); });
      const a = cache.get('a');
      cache.get('b');
      expect(cache.get('a')).to.equal(a);
      cache.get('c');
      expect(cache.length).to.equal(2);
      expect(cache.get('a')).to.equal(a);
      expect(made).to.equal(3);
      // 'b' was the least recently used: it went, and comes back as a new, full bucket.
      cache.get('b');
      expect(made).to.equal(4);
    });
  });

  describe('plugin', () => {
    it('refuses the event past the Server burst with Kubernetes\' 429 and no Retry-After', async () => {
      const plugin = eventRateLimit([{ type: 'Server', qps: 1, burst: 2, cacheSize: 0 }], () => 0);
      await plugin.validate!(attrs({ namespace: 'a' }));
      await plugin.validate!(attrs({ namespace: 'b' }));
      const err = await rejection(() => plugin.validate!(attrs({ namespace: 'c' })));
      expect(err.code).to.equal(429);
      expect(err.reason).to.equal('TooManyRequests');
      expect(err.message).to.equal('Too many requests: limit reached on type Server for key ');
      expect(err.headers).to.deep.equal({});
    });

    it('keeps a bucket per namespace and per user', async () => {
      const ns = eventRateLimit([{ type: 'Namespace', qps: 1, burst: 1, cacheSize: 0 }], () => 0);
      await ns.validate!(attrs({ namespace: 'a' }));
      await ns.validate!(attrs({ namespace: 'b' }));
      expect((await rejection(() => ns.validate!(attrs({ namespace: 'a' })))).message).to.equal('Too many requests: limit reached on type Namespace for key a');
      const user = eventRateLimit([{ type: 'User', qps: 1, burst: 1, cacheSize: 0 }], () => 0);
      await user.validate!(attrs({ user: 'alice' }));
      await user.validate!(attrs({ user: 'bob' }));
      expect((await rejection(() => user.validate!(attrs({ user: 'bob', namespace: 'other' })))).message).to.equal('Too many requests: limit reached on type User for key bob');
    });

    it('keys SourceAndObject by source and involved object, concatenated', async () => {
      const event = { metadata: { name: 'e' }, source: { component: 'kubelet', host: 'n1' }, involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'u', apiVersion: 'v1' } };
      expect(sourceAndObjectKey(event)).to.equal('kubeletn1Podnspuv1');
      const plugin = eventRateLimit([{ type: 'SourceAndObject', qps: 1, burst: 1, cacheSize: 0 }], () => 0);
      await plugin.validate!(attrs({ object: event }));
      await plugin.validate!(attrs({ object: { ...event, involvedObject: { ...event.involvedObject, name: 'q' } } }));
      expect((await rejection(() => plugin.validate!(attrs({ object: event })))).message).to.equal('Too many requests: limit reached on type SourceAndObject for key kubeletn1Podnspuv1');
    });

    it('counts core Event creates and updates only', async () => {
      const plugin = eventRateLimit([{ type: 'Server', qps: 1, burst: 1, cacheSize: 0 }], () => 0);
      await plugin.validate!(attrs({ operation: 'DELETE' }));
      await plugin.validate!(attrs({ resource: V1_EVENTS }));
      await plugin.validate!(attrs({ resource: { ...CORE_EVENTS, kind: 'ConfigMap', resource: 'configmaps' } }));
      await plugin.validate!(attrs({ operation: 'UPDATE' }));
      await rejection(() => plugin.validate!(attrs()));
    });
  });
});

/**
 * EventRateLimit (plugin/pkg/admission/eventratelimit): every configured limit has its token
 * buckets, keyed by its type: Server (one bucket), Namespace (the request's namespace), User (the
 * requesting user's name) and SourceAndObject (the event's source component and host and its
 * object's kind, namespace, name, uid and apiVersion, joined without separator). Each create or
 * update of a core Event takes a token from its bucket of every limit; when one is empty the
 * request fails 429 TooManyRequests with Kubernetes' `Too many requests: limit reached on type
 * <type> for key <key>` and no Retry-After (NewTooManyRequestsError), and nothing is stored.
 *
 * As in Kubernetes, the plugin looks at the request's kind: events.k8s.io writes (whose kind is
 * events.k8s.io's Event) are not limited.
 */
import { AdmissionPlugin } from '../interfaces';
import { ApiError } from '../../meta/api-errors';
import type { AdmissionAttributes } from '../../registry/admission-attributes';
import { userOf } from '../../registry/admission-attributes';
import { DEFAULT_CACHE_SIZE, EventLimit, LimitType } from './config';
import { BucketCache, Clock, TokenBucket } from './token-bucket';

type Json = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? v as Json : {});

/** getSourceAndObjectKey: the event's source and involved object, concatenated. */
export function sourceAndObjectKey(event: Json | undefined): string {
  if (!event) return '';
  const source = obj(event.source);
  const o = obj(event.involvedObject);
  return [source.component, source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map(str).join('');
}

const KEYS: Record<LimitType, (a: AdmissionAttributes) => string> = {
  Server: () => '',
  Namespace: (a) => a.namespace ?? '',
  User: (a) => userOf(a).name,
  SourceAndObject: (a) => sourceAndObjectKey(a.object as Json | undefined),
};

interface Enforcer { type: LimitType; key: (a: AdmissionAttributes) => string; bucket: (key: string) => TokenBucket }

function enforcer(limit: EventLimit, clock: Clock): Enforcer {
  const make = () => new TokenBucket(limit.qps, limit.burst, clock);
  if (limit.type === 'Server') {
    const single = make();
    return { type: limit.type, key: KEYS.Server, bucket: () => single };
  }
  const cache = new BucketCache(limit.cacheSize || DEFAULT_CACHE_SIZE, make);
  return { type: limit.type, key: KEYS[limit.type], bucket: (k) => cache.get(k) };
}

/** The plugin over validated limits (config.ts); `clock` in milliseconds (tests give their own). */
export function eventRateLimit(limits: EventLimit[], clock: Clock = () => performance.now()): AdmissionPlugin {
  const enforcers = limits.map((l) => enforcer(l, clock));
  return {
    name: 'EventRateLimit',
    resources: ['/events'],
    async validate(attrs) {
      if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
      if (attrs.resource.group !== '' || attrs.resource.kind !== 'Event' || attrs.subresource) return;
      let refusal: ApiError | undefined;
      // Every limit takes its token (as Kubernetes' loop does); the last refusal is the answer.
      for (const e of enforcers) {
        const key = e.key(attrs);
        if (!e.bucket(key).tryAccept()) {
          refusal = new ApiError(429, 'TooManyRequests', `Too many requests: limit reached on type ${e.type} for key ${key}`);
        }
      }
      if (refusal) throw refusal;
    },
  };
}

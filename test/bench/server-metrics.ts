/**
 * The server's own /metrics, read by a benchmark as an operator's Prometheus would: one scrape
 * parsed (test/helpers/prom-text.ts), and the request rates by verb and resource between two
 * scrapes (`apiserver_request_total` differences).
 */
import { ApiClient } from './api-client';
import { Exposition, parseExposition } from '../helpers/prom-text';

/** GET /metrics with the client's identity, parsed. */
export async function scrapeMetrics(api: ApiClient): Promise<Exposition> {
  const res = await api.request('GET', '/metrics');
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
  return parseExposition(res.body.toString('utf8'));
}

export interface RequestRate {
  /** e.g. `PATCH nodes/status`, `PUT coordination.k8s.io/leases`, `WATCH pods`. */
  key: string;
  /** Requests between the scrapes. */
  count: number;
  perSecond: number;
  /** Those answered with a code of 400 and above. */
  errors: number;
  /** The same by code, e.g. `410 x 12, 504 x 1`; empty when none. */
  errorCodes: string;
}

/** `verb group/resource/subresource` of one apiserver_request_total series. */
function requestKey(l: Record<string, string>): string {
  const resource = l.resource ? `${l.group ? `${l.group}/` : ''}${l.resource}${l.subresource ? `/${l.subresource}` : ''}` : '(non-resource)';
  return `${l.verb} ${resource}`;
}

/** Requests per verb and resource between `before` and `after`, `seconds` apart, most frequent first. */
export function requestRates(before: Exposition, after: Exposition, seconds: number): RequestRate[] {
  const counts = new Map<string, { count: number; errors: Map<string, number> }>();
  const add = (e: Exposition, sign: number) => {
    for (const s of e.samples) {
      if (s.name !== 'apiserver_request_total') continue;
      const key = requestKey(s.labels);
      const c = counts.get(key) ?? { count: 0, errors: new Map<string, number>() };
      c.count += sign * s.value;
      if (Number(s.labels.code) >= 400) c.errors.set(s.labels.code, (c.errors.get(s.labels.code) ?? 0) + sign * s.value);
      counts.set(key, c);
    }
  };
  add(after, 1);
  add(before, -1);
  return [...counts].filter(([, c]) => c.count > 0)
    .map(([key, c]) => {
      const codes = [...c.errors].filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b));
      return {
        key, count: c.count, perSecond: c.count / seconds,
        errors: codes.reduce((sum, [, n]) => sum + n, 0), errorCodes: codes.map(([code, n]) => `${code} x ${n}`).join(', '),
      };
    })
    .sort((a, b) => b.count - a.count);
}

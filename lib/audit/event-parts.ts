/**
 * Pieces of an audit Event: timestamps in microseconds, source IPs, the user, and the objects
 * as an event may carry them (managedFields dropped on request; Secret values and tokens never
 * below the level that allows them).
 */
import type { Context } from 'koa';
import { isIP } from 'node:net';
import { levelAtLeast, AuditLevel } from '../meta/audit-annotations';
import type { AuditUserInfo } from './types';
import { tlsSocketOf } from '../authn/request';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Now, RFC 3339 with microseconds (metav1.MicroTime). */
export function microTime(): string {
  const t = performance.timeOrigin + performance.now();
  const ms = Math.floor(t);
  const micros = Math.floor((t - ms) * 1000);
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, (_, m: string) => `.${m}${String(micros).padStart(3, '0')}Z`);
}

/** As Kubernetes' utilnet.SourceIPs: X-Forwarded-For entries, X-Real-Ip, then the peer, without repeats. */
export function sourceIPs(ctx: Context): string[] {
  const ips: string[] = [];
  const add = (ip: string | undefined) => {
    const v = ip?.trim();
    if (v && isIP(v) && !ips.includes(v)) ips.push(v);
  };
  const xff = ctx.get('x-forwarded-for');
  if (xff) for (const part of xff.split(',')) add(part);
  add(ctx.get('x-real-ip') || undefined);
  const peer = tlsSocketOf(ctx)?.remoteAddress ?? ctx.req.socket?.remoteAddress;
  add(peer?.replace(/^::ffff:(?=\d+\.)/, ''));
  return ips;
}

/** The Event's UserInfo (empty fields left out, as Go's omitempty). */
export function auditUser(u: { name: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } | undefined): AuditUserInfo {
  const out: Partial<AuditUserInfo> = {};
  if (!u) return out as AuditUserInfo;
  if (u.name) out.username = u.name;
  if (u.uid) out.uid = u.uid;
  if (u.groups?.length) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out as AuditUserInfo;
}

/** Kubernetes' words for a failed authentication's event: which credentials were tried. */
export function authMethods(ctx: Context): string {
  const methods: string[] = [];
  const auth = (ctx.get('authorization') ?? '').trim();
  if (/^basic /i.test(auth)) methods.push('basic');
  const parts = auth.split(' ');
  if (parts.length > 1 && parts[0].toLowerCase() === 'bearer') methods.push('bearer');
  if (typeof ctx.query.access_token === 'string' && ctx.query.access_token.trim()) methods.push('access_token');
  const cert = tlsSocketOf(ctx)?.getPeerCertificate();
  if (cert && Object.keys(cert).length) methods.push('x509');
  return methods.length ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

function withoutManagedFields(o: Obj): Obj {
  const meta = o.metadata;
  return isObj(meta) && 'managedFields' in meta ? { ...o, metadata: { ...meta, managedFields: undefined } } : o;
}

/** The object, or each item of a list, without metadata.managedFields (copies; the input is untouched). */
export function dropManagedFields(obj: unknown): unknown {
  if (!isObj(obj)) return obj;
  const out = withoutManagedFields(obj);
  return Array.isArray(out.items) ? { ...out, items: out.items.map((i) => (isObj(i) ? withoutManagedFields(i) : i)) } : out;
}

/** Each value replaced by "" (the keys stay: which keys a write touched is worth auditing). */
function blankValues(m: unknown): unknown {
  return isObj(m) ? Object.fromEntries(Object.keys(m).map((k) => [k, ''])) : m;
}

/**
 * What of a request or response body an event at `level` may carry. A Secret's values appear only
 * at RequestResponse (as Kubernetes); a TokenReview's spec.token and a TokenRequest's
 * status.token never (Kubernetes logs the former at Request: we do not).
 */
export function safeObject(obj: unknown, level: AuditLevel): unknown {
  if (!isObj(obj)) return obj;
  let out = obj;
  if (obj.kind === 'Secret' && !levelAtLeast(level, 'RequestResponse')) {
    out = { ...out };
    if ('data' in out) out.data = blankValues(out.data);
    if ('stringData' in out) out.stringData = blankValues(out.stringData);
  }
  if (obj.kind === 'SecretList' && Array.isArray(obj.items) && !levelAtLeast(level, 'RequestResponse')) {
    out = { ...out, items: obj.items.map((i) => safeObject(i, level)) };
  }
  if (obj.kind === 'TokenReview' && isObj(obj.spec) && 'token' in obj.spec) out = { ...out, spec: { ...obj.spec, token: '' } };
  if (obj.kind === 'TokenRequest' && isObj(obj.status) && 'token' in obj.status) out = { ...out, status: { ...obj.status, token: '' } };
  return out;
}

/**
 * Formats the networking.k8s.io kinds check that no other group does: wildcard host names
 * (IsWildcardDNS1123Subdomain), domain-prefixed paths (IsDomainPrefixedPath, an IngressClass's
 * controller), CIDRs (ValidateCIDR) and IP addresses, with Kubernetes' messages. Shared by the
 * Ingress, IngressClass and NetworkPolicy folders.
 */
import { isIP } from 'node:net';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { isDns1123Subdomain } from '../../meta/validation';

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const WILDCARD_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const wildcardRe = new RegExp(`^${WILDCARD_FMT}$`);
const WILDCARD_MSG = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

/** IsWildcardDNS1123Subdomain: `*.` and a DNS subdomain, at most 253 characters. Empty list = valid. */
export function isWildcardDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 253) errs.push('must be no more than 253 characters');
  if (!wildcardRe.test(value)) errs.push(`${WILDCARD_MSG} (e.g. '*.example.com', regex used for validation is '${WILDCARD_FMT}')`);
  return errs;
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${HTTP_PATH_FMT}$`);

/** IsDomainPrefixedPath: `<DNS subdomain>/<HTTP path>` (an IngressClass's controller). */
export function validateDomainPrefixedPath(path: string, value: string): FieldError[] {
  if (!value) return [fieldErrors.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || !host || !rest) return [fieldErrors.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDns1123Subdomain(host).map((m) => fieldErrors.invalid(path, host, m));
  if (!httpPathRe.test(rest)) errs.push(fieldErrors.invalid(path, rest, `Invalid path (regex used for validation is '${HTTP_PATH_FMT}')`));
  return errs;
}

/** A parsed CIDR: family, network bytes and prefix length. */
export interface Cidr { bytes: number[]; bits: number }

function ipBytes(ip: string): number[] | undefined {
  const family = isIP(ip);
  if (family === 4) return ip.split('.').map(Number);
  if (family !== 6) return undefined;
  // Expand `::` and an embedded IPv4 tail into 16 bytes.
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const b = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.flatMap((g) => { const n = parseInt(g, 16); return [n >> 8, n & 0xff]; });
}

/** netutils.ParseCIDRSloppy (leading zeros in IPv4 accepted): the network, or undefined. */
export function parseCidr(value: string): Cidr | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(value);
  if (!m) return undefined;
  const ip = m[1].includes(':') ? m[1] : m[1].split('.').map((p) => (/^\d+$/.test(p) ? String(Number(p)) : p)).join('.');
  const bytes = ipBytes(ip);
  const bits = Number(m[2]);
  if (!bytes || bits > bytes.length * 8) return undefined;
  return { bytes, bits };
}

/** Whether `inner`'s address lies in `outer` (same family). */
export function cidrContains(outer: Cidr, inner: Cidr): boolean {
  if (outer.bytes.length !== inner.bytes.length) return false;
  for (let bit = 0; bit < outer.bits; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((outer.bytes[bit >> 3] & mask) !== (inner.bytes[bit >> 3] & mask)) return false;
  }
  return true;
}

/** ValidateCIDR (Kubernetes 1.32). */
export function validateCidr(path: string, value: string): FieldError[] {
  return parseCidr(value) ? [] : [fieldErrors.invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

/** IsValidIP (Kubernetes 1.32). */
export function validateIp(path: string, value: string): FieldError[] {
  return looksLikeIp(value) ? [] : [fieldErrors.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

/** netutils.ParseIPSloppy succeeds: an IP address (IPv4 parts may have leading zeros). */
export function looksLikeIp(value: string): boolean {
  if (isIP(value)) return true;
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(value) && value.split('.').every((p) => Number(p) <= 255);
}

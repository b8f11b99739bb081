/**
 * The parts of Go's net/url that Kubernetes' URL library exposes, ported for exact agreement:
 * ParseRequestURI's acceptance (absolute URL or absolute path, no fragment cut) with its error texts
 * (`parse "x": invalid URI for request`), Parse's split into scheme, host, path, query and fragment,
 * Hostname/Port, EscapedPath and Query (ParseQuery's decoding, invalid pairs skipped).
 */

export interface GoUrl {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

class UrlError extends Error {}

const HEX = /^[0-9a-fA-F]{2}$/;

type Mode = 'path' | 'host' | 'query' | 'fragment' | 'userinfo';

/** Go's shouldEscape for the modes used here. */
function shouldEscape(c: string, mode: Mode): boolean {
  if (/[A-Za-z0-9]/.test(c)) return false;
  if (mode === 'host') return !"-._~!$&'()*+,;=:[]<>\"".includes(c);
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    if (mode === 'userinfo') return c === '@' || c === '/' || c === '?' || c === ':';
    if (mode === 'query') return true;
    return false;
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

function unescape(s: string, mode: Mode | 'queryComponent'): string {
  const bytes: number[] = [];
  const src = Buffer.from(s, 'utf8');
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === 0x25) {
      const hex = src.subarray(i + 1, i + 3).toString('latin1');
      if (!HEX.test(hex)) throw new UrlError(`invalid URL escape ${JSON.stringify(src.subarray(i, i + 3).toString('utf8'))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === 0x2b && mode === 'queryComponent') {
      bytes.push(0x20);
    } else {
      if (mode === 'host' && c < 0x80 && shouldEscape(String.fromCharCode(c), 'host')) {
        throw new UrlError(`invalid character ${JSON.stringify(String.fromCharCode(c))} in host name`);
      }
      bytes.push(c);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function escapePath(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && !shouldEscape(c, 'path') ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]".includes(c) || c === '%') continue;
    if (c.charCodeAt(0) >= 0x80 || shouldEscape(c, 'path')) return false;
  }
  return true;
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

const validOptionalPort = (p: string): boolean => p === '' || /^:[0-9]*$/.test(p);

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1 && !validOptionalPort(host.slice(i))) throw new UrlError(`invalid port ${JSON.stringify(host.slice(i))} after host`);
  }
  return unescape(host, 'host');
}

function parseAuthority(authority: string): string {
  const i = authority.lastIndexOf('@');
  const host = parseHost(i < 0 ? authority : authority.slice(i + 1));
  if (i >= 0 && !/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(authority.slice(0, i))) throw new UrlError('net/url: invalid userinfo');
  return host;
}

function parse(raw: string, viaRequest: boolean): GoUrl {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new UrlError('empty url');
  const url: GoUrl = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', fragment: '' };
  if (raw === '*') {
    url.path = '*';
    return url;
  }
  let [scheme, rest] = getScheme(raw);
  url.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return url;
    }
    if (viaRequest) throw new UrlError('invalid URI for request');
    const seg = rest.split('/')[0];
    if (seg.includes(':')) throw new UrlError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const i = authority.indexOf('/');
    if (i >= 0) {
      rest = authority.slice(i);
      authority = authority.slice(0, i);
    }
    url.host = parseAuthority(authority);
  }
  url.path = unescape(rest, 'path');
  url.rawPath = rest;
  return url;
}

function wrap(raw: string, f: () => GoUrl): GoUrl {
  try {
    return f();
  } catch (e) {
    if (e instanceof UrlError) throw new Error(`parse ${JSON.stringify(raw)}: ${e.message}`);
    throw e;
  }
}

/** Go's url.ParseRequestURI: throws with Go's text (`parse "x": invalid URI for request`). */
export function parseRequestURI(raw: string): GoUrl {
  return wrap(raw, () => parse(raw, true));
}

/** Go's url.Parse: the fragment is cut off first. */
export function parseUrl(raw: string): GoUrl {
  return wrap(raw, () => {
    const h = raw.indexOf('#');
    const u = parse(h >= 0 ? raw.slice(0, h) : raw, false);
    if (h >= 0) u.fragment = unescape(raw.slice(h + 1), 'fragment');
    return u;
  });
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = hostPort.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(hostPort.slice(colon))) {
    host = hostPort.slice(0, colon);
    port = hostPort.slice(colon + 1);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

export const hostname = (u: GoUrl): string => splitHostPort(u.host)[0];
export const port = (u: GoUrl): string => splitHostPort(u.host)[1];

/** Go's URL.EscapedPath: the path as written when that is a valid encoding, else Go's escaping of the path. */
export function escapedPath(u: GoUrl): string {
  if (u.rawPath && validEncoded(u.rawPath)) return u.rawPath;
  if (u.path === '*') return '*';
  return escapePath(u.path);
}

/** Go's URL.Query(): ParseQuery, skipping pairs that do not decode or contain ';'. */
export function query(u: GoUrl): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of u.rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const rawKey = eq >= 0 ? part.slice(0, eq) : part;
    const rawValue = eq >= 0 ? part.slice(eq + 1) : '';
    let key: string;
    let value: string;
    try {
      key = unescape(rawKey, 'queryComponent');
      value = unescape(rawValue, 'queryComponent');
    } catch {
      continue;
    }
    const list = out.get(key) ?? [];
    list.push(value);
    out.set(key, list);
  }
  return out;
}

/** Go's URL.String() as far as equality of two parsed URLs needs it. */
export function urlKey(u: GoUrl): string {
  return JSON.stringify([u.scheme, u.opaque, u.host, escapedPath(u), u.rawQuery, u.fragment]);
}

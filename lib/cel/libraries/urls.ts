/**
 * Kubernetes' URL library (library/urls.go): `url(string)` accepts what Go's url.ParseRequestURI
 * accepts (an absolute URL or an absolute path; the 'uri' OpenAPI format) and errors with
 * "URL parse error during conversion from string: ...", `isURL(string)`, and on a kubernetes.URL
 * getScheme, getHost (with port, IPv6 in brackets), getHostname, getPort ('' when absent),
 * getEscapedPath, getQuery (map of string to list of strings).
 *
 * Cost (library/cost.go): url and isURL cost ceil(size * 0.1); the getters 1 (URL_COSTS).
 */

import { registerLibrary } from '../environment';
import { celError } from './engine';
import { escapedPath, hostname, parseRequestURI, parseUrl, port, query, urlKey, type GoUrl } from './go-url';
import { STRING_TRAVERSAL, type CostTable } from './cost-table';

/** The CEL kubernetes.URL value. */
export class KubernetesURL {
  constructor(readonly url: GoUrl) {}
  celEquals(other: unknown): boolean {
    return other instanceof KubernetesURL && urlKey(other.url) === urlKey(this.url);
  }
}

function toUrl(s: string): KubernetesURL {
  try {
    parseRequestURI(s);
    return new KubernetesURL(parseUrl(s));
  } catch (e) {
    throw celError(`URL parse error during conversion from string: ${(e as Error).message}`);
  }
}

function isURL(s: string): boolean {
  try {
    parseRequestURI(s);
    return true;
  } catch {
    return false;
  }
}

export const URL_COSTS: CostTable = {
  url: { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
  isURL: { kind: 'linear', of: 'arg0', factor: STRING_TRAVERSAL },
  'kubernetes.URL.getScheme': { kind: 'constant', cost: 1 },
  'kubernetes.URL.getHost': { kind: 'constant', cost: 1 },
  'kubernetes.URL.getHostname': { kind: 'constant', cost: 1 },
  'kubernetes.URL.getPort': { kind: 'constant', cost: 1 },
  'kubernetes.URL.getEscapedPath': { kind: 'constant', cost: 1 },
  'kubernetes.URL.getQuery': { kind: 'constant', cost: 1 },
};

registerLibrary((env) => {
  env.registerType('kubernetes.URL', KubernetesURL);
  env.registerOperator('kubernetes.URL == kubernetes.URL', (a: KubernetesURL, b: KubernetesURL) => a.celEquals(b));
  env.registerFunction('url(string): kubernetes.URL', toUrl);
  env.registerFunction('isURL(string): bool', isURL);
  env.registerFunction('kubernetes.URL.getScheme(): string', (u: KubernetesURL) => u.url.scheme);
  env.registerFunction('kubernetes.URL.getHost(): string', (u: KubernetesURL) => u.url.host);
  env.registerFunction('kubernetes.URL.getHostname(): string', (u: KubernetesURL) => hostname(u.url));
  env.registerFunction('kubernetes.URL.getPort(): string', (u: KubernetesURL) => port(u.url));
  env.registerFunction('kubernetes.URL.getEscapedPath(): string', (u: KubernetesURL) => escapedPath(u.url));
  env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: KubernetesURL) => query(u.url));
});

/**
 * How a webhook is reached (Kubernetes' ValidateWebhookURL and ValidateWebhookService): exactly
 * one of `url` (https, a host, no user information, fragment or query) and `service` (name,
 * namespace, a port 1-65535, a path of DNS-subdomain segments starting with '/').
 * Kubernetes does not check caBundle's PEM on write; neither does this.
 */
import { FieldError, child, fieldErrors } from '../../meta/field-errors';
import { isDns1123Subdomain } from '../../meta/validation';

const FORM = '; desired format: https://host[/path]';

interface ParsedUrl { scheme: string; host: string; user?: string; password?: boolean; fragment: string; query: string }

/** The parts of a URL as Go's url.Parse splits them; a string on a parse error. */
function parseGoUrl(raw: string): ParsedUrl | string {
  if (/[\x00-\x1f\x7f]/.test(raw)) return `parse ${JSON.stringify(raw)}: net/url: invalid control character in URL`;
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) { fragment = rest.slice(hash + 1); rest = rest.slice(0, hash); }
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) { scheme = m[1].toLowerCase(); rest = rest.slice(m[0].length); } else if (rest.startsWith(':')) return `parse ${JSON.stringify(raw)}: missing protocol scheme`;
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) { query = rest.slice(q + 1); rest = rest.slice(0, q); }
  let host = '';
  let user: string | undefined;
  let password = false;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    let authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      const info = authority.slice(0, at);
      const colon = info.indexOf(':');
      user = colon < 0 ? info : info.slice(0, colon);
      password = colon >= 0;
      authority = authority.slice(at + 1);
    }
    host = authority;
  }
  return { scheme, host, user, password, fragment, query };
}

/** ValidateWebhookURL with https forced. */
export function validateWebhookUrl(path: string, url: string): FieldError[] {
  const u = parseGoUrl(url);
  if (typeof u === 'string') return [fieldErrors.required(path, `url must be a valid URL: ${u}${FORM}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(fieldErrors.invalid(path, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (!u.host) errs.push(fieldErrors.invalid(path, u.host, `host must be specified${FORM}`));
  // A password is never echoed back (Go's Userinfo.Redacted form).
  if (u.user !== undefined) errs.push(fieldErrors.invalid(path, u.password ? `${u.user}:xxxxx` : u.user, 'user information is not permitted in the URL'));
  if (u.fragment) errs.push(fieldErrors.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query) errs.push(fieldErrors.invalid(path, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

/** ValidateWebhookService: `service` is the (defaulted) ServiceReference at `path`. */
export function validateWebhookService(path: string, service: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (!service.name) errs.push(fieldErrors.required(child(path, 'name')));
  if (!service.namespace) errs.push(fieldErrors.required(child(path, 'namespace')));
  const port = typeof service.port === 'number' ? service.port : 0;
  if (!(port >= 1 && port <= 65535)) {
    errs.push(fieldErrors.invalid(child(path, 'port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (typeof service.path !== 'string') return errs;
  const urlPath = service.path;
  const pathField = child(path, 'path');
  if (urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') return [...errs, fieldErrors.invalid(pathField, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(fieldErrors.invalid(pathField, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) {
      errs.push(fieldErrors.invalid(pathField, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDns1123Subdomain(step)) errs.push(fieldErrors.invalid(pathField, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

/** The clientConfig of the webhook at `hookPath`: exactly one of url and service. */
export function validateClientConfig(hookPath: string, clientConfig: unknown): FieldError[] {
  const cc = (typeof clientConfig === 'object' && clientConfig !== null ? clientConfig : {}) as Record<string, unknown>;
  const path = child(hookPath, 'clientConfig');
  const hasUrl = cc.url !== undefined && cc.url !== null;
  const hasService = cc.service !== undefined && cc.service !== null;
  if (hasUrl === hasService) return [fieldErrors.required(path, 'exactly one of url or service is required')];
  if (hasUrl) return validateWebhookUrl(child(path, 'url'), String(cc.url));
  return validateWebhookService(child(path, 'service'), cc.service as Record<string, unknown>);
}

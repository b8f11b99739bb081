/**
 * The keys each known Secret type requires (Kubernetes' ValidateSecret), and the bootstrap
 * token rules of the access-control spec. The service-account-token and bootstrap-token type
 * names, and the service-account annotation, are the flavor's (lib/naming.ts); the other type
 * names are Kubernetes' `kubernetes.io/...` in both flavors.
 */
import { ApiObject } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { goJsonObjectError } from './go-json-error';

export const SECRET_TYPE_OPAQUE = 'Opaque';
export const SECRET_TYPE_DOCKERCFG = 'kubernetes.io/dockercfg';
export const SECRET_TYPE_DOCKER_CONFIG_JSON = 'kubernetes.io/dockerconfigjson';
export const SECRET_TYPE_BASIC_AUTH = 'kubernetes.io/basic-auth';
export const SECRET_TYPE_SSH_AUTH = 'kubernetes.io/ssh-auth';
export const SECRET_TYPE_TLS = 'kubernetes.io/tls';

const REDACTED = '<secret contents redacted>';
const TOKEN_ID = /^[a-z0-9]{6}$/;
const TOKEN_SECRET = /^[a-z0-9]{16}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const EXTRA_GROUP_PREFIX = 'system:bootstrappers:';

type Data = Record<string, string>;
const dataPath = (key: string) => `data[${key}]`;
const has = (data: Data, key: string) => Object.hasOwn(data, key);
const decoded = (data: Data, key: string): Buffer => Buffer.from(has(data, key) ? data[key] : '', 'base64');

/** A docker config key: present, and a JSON object once decoded. */
function dockerConfig(data: Data, key: string): FieldError[] {
  if (!has(data, key)) return [fieldErrors.required(dataPath(key))];
  const problem = goJsonObjectError(decoded(data, key).toString('utf8'));
  return problem ? [fieldErrors.invalid(dataPath(key), REDACTED, problem)] : [];
}

/**
 * The spec's bootstrap token Secret: token-id (6) and token-secret (16) of [a-z0-9], the name
 * `bootstrap-token-<token-id>`, an RFC 3339 expiration, extra groups under `system:bootstrappers:`.
 * (Kubernetes itself does not validate these; its authenticator ignores malformed tokens.)
 */
function bootstrapToken(obj: ApiObject, data: Data): FieldError[] {
  const errs: FieldError[] = [];
  const id = decoded(data, 'token-id').toString('utf8');
  if (!has(data, 'token-id')) errs.push(fieldErrors.required(dataPath('token-id')));
  else if (!TOKEN_ID.test(id)) errs.push(fieldErrors.invalid(dataPath('token-id'), id, 'must be 6 characters of [a-z0-9]'));
  if (!has(data, 'token-secret')) errs.push(fieldErrors.required(dataPath('token-secret')));
  else if (!TOKEN_SECRET.test(decoded(data, 'token-secret').toString('utf8'))) {
    errs.push(fieldErrors.invalid(dataPath('token-secret'), REDACTED, 'must be 16 characters of [a-z0-9]'));
  }
  const name = obj.metadata?.name ?? '';
  if (TOKEN_ID.test(id) && name !== `bootstrap-token-${id}`) {
    errs.push(fieldErrors.invalid('metadata.name', name, `must be "bootstrap-token-${id}" for token-id "${id}"`));
  }
  if (has(data, 'expiration')) {
    const expiration = decoded(data, 'expiration').toString('utf8');
    if (!RFC3339.test(expiration) || Number.isNaN(Date.parse(expiration))) {
      errs.push(fieldErrors.invalid(dataPath('expiration'), expiration, 'must be an RFC 3339 time'));
    }
  }
  if (has(data, 'auth-extra-groups')) {
    const groups = decoded(data, 'auth-extra-groups').toString('utf8');
    for (const group of groups.split(',')) {
      if (!group.startsWith(EXTRA_GROUP_PREFIX) || group.length === EXTRA_GROUP_PREFIX.length) {
        errs.push(fieldErrors.invalid(dataPath('auth-extra-groups'), group, `each group must start with "${EXTRA_GROUP_PREFIX}"`));
      }
    }
  }
  return errs;
}

/** The type-specific errors of a Secret (data already merged with stringData). */
export function validateSecretType(obj: ApiObject, naming: Naming): FieldError[] {
  const data = (obj.data ?? {}) as Data;
  switch (obj.type) {
    case naming.serviceAccountTokenType: {
      // Only the account name is required; a controller fills the token later.
      const annotation = naming.serviceAccountNameAnnotation;
      return obj.metadata?.annotations?.[annotation] ? [] : [fieldErrors.required(`metadata.annotations[${annotation}]`)];
    }
    case naming.bootstrapTokenType:
      return bootstrapToken(obj, data);
    case SECRET_TYPE_DOCKERCFG:
      return dockerConfig(data, '.dockercfg');
    case SECRET_TYPE_DOCKER_CONFIG_JSON:
      return dockerConfig(data, '.dockerconfigjson');
    case SECRET_TYPE_BASIC_AUTH:
      // Either may be empty, but one must be present.
      return has(data, 'username') || has(data, 'password') ? [] : [fieldErrors.required(dataPath('username')), fieldErrors.required(dataPath('password'))];
    case SECRET_TYPE_SSH_AUTH:
      return decoded(data, 'ssh-privatekey').length ? [] : [fieldErrors.required(dataPath('ssh-privatekey'))];
    case SECRET_TYPE_TLS:
      return ['tls.crt', 'tls.key'].filter((k) => !has(data, k)).map((k) => fieldErrors.required(dataPath(k)));
    default:
      return [];
  }
}

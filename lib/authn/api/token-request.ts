/**
 * TokenRequest (`POST .../serviceaccounts/<name>/token`, what `kubectl create token` sends): a
 * bound service-account token for `spec.audiences` (default: the server's), valid
 * `spec.expirationSeconds` (default 3600, at least 600, at most 2^32, capped by
 * --service-account-max-token-expiration), optionally bound to a Pod (that runs as this account)
 * or a Secret, whose uid must match when given. 201 with `status.token` and
 * `status.expirationTimestamp`. A dry run validates and issues nothing.
 */
import { CustomScope } from '../../api/resource-handler';
import { StoreIndex, storeKey } from '../../registry/store-index';
import { RequestReads } from '../../registry/request-reads';
import { readBodyAs, requestStrategyContext, writeOptionsOf } from '../../api/handlers/scope';
import { writeObject } from '../../api/response-writer';
import { errors } from '../../meta/api-errors';
import { FieldError, fieldErrors } from '../../meta/field-errors';
import { ApiObject, ResourceDef } from '../../scheme/types';
import { TokenGenerator } from '../../serviceaccount/token-generator';
import { ObjectRef } from '../../serviceaccount/claims';
import { now } from '../../registry/system-fields';

const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface TokenRequestDeps {
  stores: StoreIndex;
  generator: TokenGenerator;
  /** --api-audiences (or the issuers). */
  apiAudiences: string[];
  /** --service-account-max-token-expiration in seconds; 0: none. */
  maxExpirationSeconds: number;
  /** TokenRequest as a body kind (lib/registry/authentication/token-requests). */
  bodyKind: ResourceDef;
}

interface Spec { audiences?: unknown; expirationSeconds?: unknown; boundObjectRef?: { kind?: unknown; apiVersion?: unknown; name?: unknown; uid?: unknown } | null }

/** Kubernetes' ValidateTokenRequest. */
export function validateTokenRequestSpec(expirationSeconds: number): FieldError[] {
  if (expirationSeconds < MIN_EXPIRATION_SECONDS) return [fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes')];
  if (expirationSeconds > MAX_EXPIRATION_SECONDS) return [fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds')];
  return [];
}

/** `group/version, Kind=kind` (Go's GroupVersionKind.String()). */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${group}/${version}, Kind=${kind}`;
}

export function tokenRequestHandler(deps: TokenRequestDeps) {
  const store = (resource: string) => deps.stores.get(storeKey('', 'v1', resource))!;
  return async (s: CustomScope): Promise<void> => {
    const namespace = s.info.namespace as string;
    const name = s.info.name as string;
    const { dryRun } = writeOptionsOf(s.ctx, 'create');
    const body = await readBodyAs(s.ctx, deps.bodyKind, namespace);
    const spec = { ...((body.spec ?? {}) as Spec) };
    const expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
    if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds)) {
      throw errors.badRequest('TokenRequest in version "v1" cannot be handled as a TokenRequest: spec.expirationSeconds must be an integer');
    }
    const errs = validateTokenRequestSpec(expirationSeconds);
    if (errs.length) throw errors.invalid('TokenRequest', deps.bodyKind.group, '', errs);

    // The request's current reads: a bound pod is read while the account is, once for
    // NodeRestriction and the binding below.
    const reads = new RequestReads();
    const ref = spec.boundObjectRef;
    const apiVersion = typeof ref?.apiVersion === 'string' ? ref.apiVersion : '';
    const kind = typeof ref?.kind === 'string' ? ref.kind : '';
    const refName = typeof ref?.name === 'string' ? ref.name : '';
    const core = !apiVersion.includes('/');
    // Started now, joined by the reads below (which see its answer or its error again).
    if (ref && core && kind === 'Pod' && refName) void store('pods').getStored(namespace, refName, undefined, reads).catch(() => undefined);
    const accounts = store('serviceaccounts');
    const account = await accounts.get(namespace, name, undefined, reads);
    // Admission (NodeRestriction, webhooks) sees a CREATE of serviceaccounts/token carrying the TokenRequest, as TokenREST runs it.
    const attrs = {
      operation: 'CREATE' as const, resource: accounts.def, subresource: 'token', namespace, name,
      object: { ...body, spec }, dryRun, ctx: requestStrategyContext(s.ctx, namespace, s.user), reads,
    };
    await accounts.deps.admission.admit(attrs);
    await accounts.deps.admission.validate(attrs);
    let pod: ObjectRef | undefined;
    let secret: ObjectRef | undefined;
    if (ref) {
      let bound: ApiObject;
      if (core && kind === 'Pod') {
        bound = await store('pods').get(namespace, refName, undefined, reads);
        const runsAs = (bound.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName ?? '';
        if (runsAs !== name) throw errors.badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
        pod = { name: refName, uid: String(bound.metadata?.uid) };
      } else if (core && kind === 'Secret') {
        bound = await store('secrets').get(namespace, refName);
        secret = { name: refName, uid: String(bound.metadata?.uid) };
      } else {
        throw errors.badRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
      }
      if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== bound.metadata?.uid) {
        throw errors.conflict({ group: '', resource: kind }, refName,
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
      }
    }
    const audiences = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences.map(String) : [...deps.apiAudiences];
    const seconds = deps.maxExpirationSeconds > 0 ? Math.min(expirationSeconds, deps.maxExpirationSeconds) : expirationSeconds;
    const out: ApiObject = {
      apiVersion: body.apiVersion, kind: body.kind,
      metadata: { name, namespace, creationTimestamp: now() },
      spec: { ...spec, audiences, expirationSeconds: seconds },
    };
    if (!dryRun) {
      const { token, expiresAt } = await deps.generator.bound({
        namespace, serviceAccount: { name, uid: String(account.metadata?.uid) }, pod, secret, audiences, expirationSeconds: seconds,
      });
      out.status = { token, expirationTimestamp: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') };
    }
    writeObject(s.ctx, 201, out);
  };
}

/**
 * ServiceAccount (core/v1, namespaced): an identity for workloads, with the secrets its pods may
 * use, the secrets that pull their images, and whether they get a token mounted. A secret
 * reference keeps only its name on every write. Beyond metadata (a DNS-subdomain name) nothing
 * is validated. DELETE answers the deleted object. Tokens: the `token` subresource (TokenRequest).
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { serviceAccountSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming, flavors } from '../../../naming';

const secretsOf = (obj: { [key: string]: unknown }): unknown[] => (Array.isArray(obj.secrets) ? obj.secrets : []);

/**
 * A secret reference names a secret of the account's own namespace: kind, uid, fieldPath and the
 * rest are dropped on create and update, as Kubernetes' strategy does.
 */
function keepSecretNames(obj: ApiObject): void {
  if (!Array.isArray(obj.secrets)) return;
  obj.secrets = obj.secrets.map((ref) => {
    const name = (ref as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name !== '' ? { name } : {};
  });
}

/** kubectl's NAME SECRETS AGE: SECRETS counts the entries of .secrets. */
const serviceAccountTable: TableColumns = {
  columns: [
    nameColumn,
    column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'),
    ageColumn,
  ],
  cells: (obj, now) => [
    obj.metadata?.name ?? '',
    secretsOf(obj).length,
    translateTimestampSince(obj.metadata?.creationTimestamp, now),
  ],
};

/** The ServiceAccount kind; its `token` subresource answers authentication/v1 TokenRequest (lib/registry/authentication/token-requests). */
export function serviceAccountResource(naming: Naming = flavors.orch): ResourceDef {
  return {
    group: '', version: 'v1', kind: 'ServiceAccount', listKind: 'ServiceAccountList', resource: 'serviceaccounts', singular: 'serviceaccount',
    namespaced: true, shortNames: ['sa'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ name: 'token', kind: 'TokenRequest', group: naming.group('authentication'), version: 'v1', verbs: ['create'] }],
    deleteReturnsStatus: false, nameValidation: 'dns-subdomain', schema: serviceAccountSchema,
    table: serviceAccountTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, serviceAccountSchema, 'ServiceAccount'),
      prepareForCreate: (obj) => keepSecretNames(obj),
      prepareForUpdate: (obj) => keepSecretNames(obj),
    },
  };
}

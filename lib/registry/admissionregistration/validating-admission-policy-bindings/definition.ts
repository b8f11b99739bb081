/**
 * ValidatingAdmissionPolicyBinding (admissionregistration/v1, cluster-scoped): binds a
 * ValidatingAdmissionPolicy to its parameters (paramRef), narrows what it matches
 * (matchResources) and says what a failed validation does (validationActions Deny, Warn, Audit).
 * Defaults paramRef's parameterNotFoundAction Deny and matchResources' defaults; generation counts
 * spec changes. kubectl's NAME POLICYNAME PARAMREF AGE.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { decodeProblem } from '../../../scheme/decode-check';
import { defaultMatchResources } from '../policy-match-resources';
import { validatingAdmissionPolicyBindingSchema } from './schema';
import { validateBinding } from './validation';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** SetDefaults_ParamRef (parameterNotFoundAction Deny) and the MatchResources defaults. */
export function defaultBinding(obj: ApiObject): void {
  if (!isObject(obj.spec)) return;
  const pr = obj.spec.paramRef;
  if (isObject(pr) && (pr.parameterNotFoundAction === undefined || pr.parameterNotFoundAction === null)) pr.parameterNotFoundAction = 'Deny';
  defaultMatchResources(obj.spec.matchResources);
}

/** printers.go: PARAMREF is `namespace/name`, `name`, or <unset>. */
const bindingTable: TableColumns = {
  columns: [
    nameColumn,
    column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageColumn,
  ],
  cells: (obj, now) => {
    const spec = isObject(obj.spec) ? obj.spec : {};
    const pr = isObject(spec.paramRef) ? spec.paramRef : undefined;
    let ref = '<unset>';
    if (pr && typeof pr.name === 'string' && pr.name) ref = typeof pr.namespace === 'string' && pr.namespace ? `${pr.namespace}/${pr.name}` : pr.name;
    else if (pr && isObject(pr.selector)) ref = '*';
    return [obj.metadata?.name ?? '', String(spec.policyName ?? ''), ref, translateTimestampSince(obj.metadata?.creationTimestamp, now)];
  },
};

export function validatingAdmissionPolicyBindingResource(naming: Naming): ResourceDef {
  const schema = validatingAdmissionPolicyBindingSchema;
  return {
    group: naming.group('admissionregistration'), version: 'v1', kind: 'ValidatingAdmissionPolicyBinding', listKind: 'ValidatingAdmissionPolicyBindingList',
    resource: 'validatingadmissionpolicybindings', singular: 'validatingadmissionpolicybinding', namespaced: false, shortNames: [], categories: ['api-extensions'],
    verbs: VERBS, subresources: [], deleteReturnsStatus: true, nameValidation: 'dns-subdomain', schema, table: bindingTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, schema, 'ValidatingAdmissionPolicyBinding'),
      default: defaultBinding,
      prepareForCreate: (obj) => defaultBinding(obj),
      prepareForUpdate: (obj) => defaultBinding(obj),
      specChanged: (obj, old) => !isDeepStrictEqual(obj.spec ?? null, old.spec ?? null),
      validate: (obj) => validateBinding(obj),
      validateUpdate: (obj) => validateBinding(obj),
    },
  };
}

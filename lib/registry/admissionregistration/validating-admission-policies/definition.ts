/**
 * ValidatingAdmissionPolicy (admissionregistration/v1, cluster-scoped): CEL validations the
 * ValidatingAdmissionPolicy admission plugin (lib/admission/policy/) runs for the requests its
 * bindings select. Defaults failurePolicy Fail and the matchConstraints' defaults; generation counts
 * spec changes; the status (type-checking warnings, observedGeneration, conditions: the
 * validatingadmissionpolicy-status controller's) changes only through `/status`. kubectl's NAME
 * VALIDATIONS PARAMKIND AGE.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { decodeProblem } from '../../../scheme/decode-check';
import { statusSubresource } from '../../status-subresource';
import { defaultMatchResources } from '../policy-match-resources';
import { validatingAdmissionPolicySchema } from './schema';
import { validatePolicy, validatePolicyStatus, validatePolicyUpdate } from './validation';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** SetDefaults_ValidatingAdmissionPolicySpec and the MatchResources defaults. */
export function defaultPolicy(obj: ApiObject): void {
  if (!isObject(obj.spec)) return;
  if (obj.spec.failurePolicy === undefined || obj.spec.failurePolicy === null) obj.spec.failurePolicy = 'Fail';
  defaultMatchResources(obj.spec.matchConstraints);
}

/** printers.go: VALIDATIONS counts spec.validations; PARAMKIND is `apiVersion/kind` or <unset>. */
const policyTable: TableColumns = {
  columns: [
    nameColumn,
    column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
    column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    ageColumn,
  ],
  cells: (obj, now) => {
    const spec = isObject(obj.spec) ? obj.spec : {};
    const pk = isObject(spec.paramKind) ? spec.paramKind : undefined;
    return [
      obj.metadata?.name ?? '',
      Array.isArray(spec.validations) ? spec.validations.length : 0,
      pk ? `${String(pk.apiVersion ?? '')}/${String(pk.kind ?? '')}` : '<unset>',
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
    ];
  },
};

export function validatingAdmissionPolicyResource(naming: Naming): ResourceDef {
  const schema = validatingAdmissionPolicySchema;
  const status = statusSubresource('ValidatingAdmissionPolicy');
  status.validateUpdate = (obj) => validatePolicyStatus(obj);
  return {
    group: naming.group('admissionregistration'), version: 'v1', kind: 'ValidatingAdmissionPolicy', listKind: 'ValidatingAdmissionPolicyList',
    resource: 'validatingadmissionpolicies', singular: 'validatingadmissionpolicy', namespaced: false, shortNames: [], categories: ['api-extensions'],
    verbs: VERBS, subresources: [status], deleteReturnsStatus: true, nameValidation: 'dns-subdomain', schema, table: policyTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, schema, 'ValidatingAdmissionPolicy'),
      default: defaultPolicy,
      prepareForCreate: (obj) => { defaultPolicy(obj); delete obj.status; },
      prepareForUpdate: (obj, old) => {
        defaultPolicy(obj);
        if (old.status === undefined) delete obj.status;
        else obj.status = old.status;
      },
      specChanged: (obj, old) => !isDeepStrictEqual(obj.spec ?? null, old.spec ?? null),
      validate: (obj) => validatePolicy(obj),
      validateUpdate: (obj, old) => validatePolicyUpdate(obj, old),
    },
  };
}

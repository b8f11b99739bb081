/**
 * FlowSchema (flowcontrol.apiserver.k8s.io/v1, cluster-scoped): API priority and fairness' rule
 * for which requests go to which priority level and how they split into flows. Defaults as
 * pkg/apis/flowcontrol/v1/defaults.go (matchingPrecedence 1000); validation as 1.32's, with the
 * mandatory `exempt` and `catch-all` held to the bootstrap spec. Status (the `Dangling`
 * condition the config consumer keeps) is written only through `/status`; spec changes bump
 * metadata.generation. kubectl's NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE
 * MISSINGPL table (printFlowSchema).
 *
 * Not here: the configuration keeper and the condition writer (lib/controllers/apf-config/), and
 * the dispatcher that classifies requests by these objects (lib/flowcontrol/).
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { statusSubresource } from '../../status-subresource';
import { flowcontrolSpecEqual } from '../spec-equal';
import { flowSchemaSchema } from './schema';
import { validateFlowSchema, validateFlowSchemaStatus } from './validation';

const KIND = 'FlowSchema';
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const specOf = (obj: ApiObject): Json => (isObject(obj.spec) ? obj.spec : {});
const conditionsOf = (obj: ApiObject): Json[] =>
  (isObject(obj.status) && Array.isArray(obj.status.conditions) ? obj.status.conditions.filter(isObject) : []);

/** SetDefaults_FlowSchemaSpec. */
export function defaultFlowSchema(obj: ApiObject): void {
  const spec = isObject(obj.spec) ? obj.spec : (obj.spec = {});
  if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000;
}

/** printFlowSchema: MISSINGPL is the Dangling condition's status, `?` without one. */
const flowSchemaTable: TableColumns = {
  columns: [
    nameColumn,
    column('PriorityLevel', 'string', '`name` is the name of the priority level configuration being referenced Required.'),
    column('MatchingPrecedence', 'string', '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.'),
    column('DistinguisherMethod', 'string', '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.'),
    ageColumn,
    column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  cells: (obj, now) => {
    const spec = specOf(obj as ApiObject);
    const pl = isObject(spec.priorityLevelConfiguration) ? spec.priorityLevelConfiguration.name ?? '' : '';
    const dm = isObject(spec.distinguisherMethod) ? spec.distinguisherMethod.type ?? '' : '<none>';
    const dangling = conditionsOf(obj as ApiObject).find((c) => c.type === 'Dangling');
    return [
      obj.metadata?.name ?? '', pl, spec.matchingPrecedence ?? 0, dm,
      translateTimestampSince(obj.metadata?.creationTimestamp, now), dangling ? dangling.status ?? '' : '?',
    ];
  },
};

export function flowSchemaResource(group: string): ResourceDef {
  return {
    group, version: 'v1', kind: KIND, listKind: 'FlowSchemaList',
    resource: 'flowschemas', singular: 'flowschema', namespaced: false, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    // ValidateFlowSchemaStatusUpdate: a /status write is checked for its status alone.
    subresources: [{ ...statusSubresource(KIND), validateUpdate: (obj) => validateFlowSchemaStatus(obj.status) }],
    deleteReturnsStatus: true,
    nameValidation: 'dns-subdomain',
    schema: flowSchemaSchema,
    table: flowSchemaTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, flowSchemaSchema, KIND),
      default: defaultFlowSchema,
      prepareForCreate: (obj) => { defaultFlowSchema(obj); obj.status = {}; },
      prepareForUpdate: (obj, old) => { defaultFlowSchema(obj); obj.status = old.status ?? {}; },
      specChanged: (obj, old) => !flowcontrolSpecEqual(obj.spec ?? {}, old.spec ?? {}),
      validate: (obj) => validateFlowSchema(obj.metadata?.name ?? '', specOf(obj), obj.status),
      // ValidateFlowSchemaUpdate is ValidateFlowSchema; a /status write carries the stored spec.
      validateUpdate: (obj) => validateFlowSchema(obj.metadata?.name ?? '', specOf(obj), obj.status),
    },
  };
}

/**
 * RuntimeClass (node.k8s.io/v1, cluster-scoped): a container runtime configuration (the CRI
 * handler) pods name in spec.runtimeClassName, with the overhead and scheduling constraints the
 * RuntimeClass admission plugin (lib/admission/runtimeclass/) copies into those pods. The
 * handler is immutable; PUT may create, and updates must name a resourceVersion, as in
 * Kubernetes. kubectl's NAME HANDLER AGE table.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { runtimeClassSchema } from './schema';
import { validateRuntimeClass, validateRuntimeClassUpdate } from './validation';
import { canonicalResourceList } from '../../core/resource-quantities';

const KIND = 'RuntimeClass';
type RuntimeClassJson = ApiObject & { handler?: unknown; overhead?: { podFixed?: unknown } };

/**
 * What Go's decoding and defaults make of a class: `handler` written always (no omitempty), and
 * overhead.podFixed in canonical form rounded up to milli units (SetDefaults_ResourceList).
 */
function defaultRuntimeClass(obj: ApiObject): void {
  const rc = obj as RuntimeClassJson;
  rc.handler ??= '';
  const overhead = rc.overhead;
  if (overhead && typeof overhead === 'object' && overhead.podFixed) overhead.podFixed = canonicalResourceList(overhead.podFixed);
}

/** printRuntimeClass. Kubernetes describes the Handler column with ObjectMeta's (absent) `handler` doc: empty. */
const runtimeClassTable: TableColumns = {
  columns: [nameColumn, column('Handler', 'string', ''), ageColumn],
  cells: (obj, now) => {
    const handler = (obj as ApiObject & { handler?: unknown }).handler;
    return [obj.metadata?.name ?? '', typeof handler === 'string' ? handler : '', translateTimestampSince(obj.metadata?.creationTimestamp, now)];
  },
};

export function runtimeClassResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('node'), version: 'v1', kind: KIND, listKind: 'RuntimeClassList',
    resource: 'runtimeclasses', singular: 'runtimeclass', namespaced: false, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: runtimeClassSchema,
    table: runtimeClassTable,
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: false,
      checkDecode: (obj) => decodeProblem(obj, runtimeClassSchema, KIND),
      default: defaultRuntimeClass,
      prepareForCreate: defaultRuntimeClass,
      prepareForUpdate: (obj) => defaultRuntimeClass(obj),
      validate: (obj) => validateRuntimeClass(obj),
      validateUpdate: (obj, old) => validateRuntimeClassUpdate(obj, old),
    },
  };
}

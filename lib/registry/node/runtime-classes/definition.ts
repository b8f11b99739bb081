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

const KIND = 'RuntimeClass';

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
      // Go writes `handler` always (no omitempty).
      prepareForCreate: (obj) => { (obj as ApiObject & { handler?: unknown }).handler ??= ''; },
      prepareForUpdate: (obj) => { (obj as ApiObject & { handler?: unknown }).handler ??= ''; },
      validate: (obj) => validateRuntimeClass(obj),
      validateUpdate: (obj, old) => validateRuntimeClassUpdate(obj, old),
    },
  };
}

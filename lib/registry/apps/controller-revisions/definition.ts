/**
 * ControllerRevision (apps/v1, namespaced): the snapshots DaemonSet and StatefulSet controllers
 * keep of their templates. `data` is required and immutable, `revision` (0 when absent, as Go
 * decodes it) not negative; PUT does not create; kubectl's NAME CONTROLLER REVISION AGE table.
 */
import { ApiObject, OwnerReference, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { APPS_GROUP } from '../group';
import { controllerRevisionSchema } from './schema';
import { validateControllerRevision, validateControllerRevisionUpdate } from './validation';

/**
 * The CONTROLLER cell: the controlling owner as `<kind>.<group>/<name>` in lower case
 * (`statefulset.apps/web`; a core kind without the group), `<none>` without one.
 */
export function controllerCell(obj: ApiObject): string {
  const ref = (obj.metadata?.ownerReferences as OwnerReference[] | undefined)?.find((r) => r.controller === true);
  if (!ref) return '<none>';
  const apiVersion = ref.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = ref.kind ?? '';
  if (!group && !kind) return ref.name;
  return `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${ref.name}`;
}

/** printControllerRevision's columns; REVISION is declared a string and filled with the number. */
const controllerRevisionTable: TableColumns = {
  columns: [
    nameColumn,
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
    ageColumn,
  ],
  cells: (obj, now) => [
    obj.metadata?.name ?? '',
    controllerCell(obj as ApiObject),
    typeof obj.revision === 'number' ? obj.revision : 0,
    translateTimestampSince(obj.metadata?.creationTimestamp, now),
  ],
};

/** Go's zero value: `revision` has no omitempty, so an object without it reads `revision: 0`. */
function defaults(obj: ApiObject): void {
  if (obj.revision === undefined || obj.revision === null) obj.revision = 0;
}

export function controllerRevisionResource(): ResourceDef {
  return {
    group: APPS_GROUP, version: 'v1', kind: 'ControllerRevision', listKind: 'ControllerRevisionList',
    resource: 'controllerrevisions', singular: 'controllerrevision',
    namespaced: true, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [], deleteReturnsStatus: true, nameValidation: 'dns-subdomain', schema: controllerRevisionSchema,
    table: controllerRevisionTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, controllerRevisionSchema, 'ControllerRevision'),
      default: defaults,
      prepareForCreate: defaults,
      prepareForUpdate: defaults,
      validate: (obj) => validateControllerRevision(obj),
      validateUpdate: (obj, old) => validateControllerRevisionUpdate(obj, old),
    },
  };
}

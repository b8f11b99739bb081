/**
 * StorageClass (storage/v1, cluster-scoped, short name `sc`): how volumes of a class are
 * provisioned. reclaimPolicy defaults to Delete and volumeBindingMode to Immediate;
 * provisioner, parameters, reclaimPolicy and volumeBindingMode cannot change; allowedTopologies
 * is replaced as a whole on merge. DELETE answers the object.
 *
 * Admission seam: marking a class default (`storageclass.kubernetes.io/is-default-class`) is
 * read by the DefaultStorageClass admission plugin on the AdmissionChain, not here.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { storageClassSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { FieldError, child, fieldErrors, index } from '../../../meta/field-errors';
import { isQualifiedName } from '../../../meta/validation';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { storageNames } from '../../core/storage-annotations';
import { semanticEqual } from '../../core/semantic-equal';

interface TopologyTerm { matchLabelExpressions?: Array<{ key?: string; values?: string[] | null }> | null }

interface StorageClass extends ApiObject {
  provisioner?: string;
  parameters?: Record<string, string> | null;
  reclaimPolicy?: string | null;
  volumeBindingMode?: string | null;
  allowVolumeExpansion?: boolean | null;
  allowedTopologies?: TopologyTerm[] | null;
}

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETER_BYTES = 256 * 1024;

function validateParameters(params: Record<string, string> | null | undefined): FieldError[] {
  const entries = Object.entries(params ?? {});
  if (entries.length > MAX_PARAMETERS) return [fieldErrors.tooLong('parameters', MAX_PARAMETERS)];
  const errs: FieldError[] = entries.filter(([k]) => !k).map(([k]) => fieldErrors.invalid('parameters', k, 'field can not be empty.'));
  const size = entries.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v ?? '')), 0);
  if (size > MAX_PARAMETER_BYTES) errs.push(fieldErrors.tooLong('parameters', MAX_PARAMETER_BYTES));
  return errs;
}

/**
 * ValidateTopologySelectorTerm for each term: keys are label names, values required and
 * unique, no key twice in a term, no two terms alike. As in Kubernetes, a term without
 * expressions counts as a duplicate (it equals the empty terms it is compared with).
 */
function validateAllowedTopologies(terms: TopologyTerm[] | null | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const seen: string[] = [];
  (terms ?? []).forEach((term, i) => {
    const termPath = index('allowedTopologies', i);
    const exprPath = child(termPath, 'matchLabelExpressions');
    const byKey = new Map<string, string[]>();
    (term?.matchLabelExpressions ?? []).forEach((req, j) => {
      const reqPath = index(exprPath, j);
      const values = req?.values ?? [];
      if (!values.length) errs.push(fieldErrors.required(child(reqPath, 'values')));
      values.forEach((v, k) => { if (values.indexOf(v) < k) errs.push(fieldErrors.duplicate(index(child(reqPath, 'values'), k), v)); });
      const key = req?.key ?? '';
      for (const m of isQualifiedName(key)) errs.push(fieldErrors.invalid(child(reqPath, 'key'), key, m));
      if (byKey.has(key)) errs.push(fieldErrors.duplicate(child(reqPath, 'key'), key));
      byKey.set(key, [...new Set(values)].sort());
    });
    const raw = JSON.stringify([...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (!byKey.size || seen.includes(raw)) errs.push(fieldErrors.duplicate(exprPath, ''));
    seen.push(raw);
  });
  return errs;
}

function validate(sc: StorageClass): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = sc.provisioner ?? '';
  if (!provisioner) errs.push(fieldErrors.required('provisioner'));
  else errs.push(...isQualifiedName(provisioner.toLowerCase()).map((m) => fieldErrors.invalid('provisioner', provisioner.toLowerCase(), m)));
  errs.push(...validateParameters(sc.parameters));
  if (sc.reclaimPolicy && !RECLAIM_POLICIES.includes(sc.reclaimPolicy)) errs.push(fieldErrors.notSupported('reclaimPolicy', sc.reclaimPolicy, RECLAIM_POLICIES));
  if (sc.volumeBindingMode === undefined || sc.volumeBindingMode === null) errs.push(fieldErrors.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) errs.push(fieldErrors.notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  errs.push(...validateAllowedTopologies(sc.allowedTopologies));
  return errs;
}

function validateUpdate(sc: StorageClass, old: StorageClass): FieldError[] {
  const errs = validate(sc);
  if (!semanticEqual(sc.parameters ?? {}, old.parameters ?? {})) errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
  if ((sc.provisioner ?? '') !== (old.provisioner ?? '')) errs.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if ((sc.reclaimPolicy ?? '') !== (old.reclaimPolicy ?? '')) errs.push(fieldErrors.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if ((sc.volumeBindingMode ?? null) !== (old.volumeBindingMode ?? null)) errs.push(fieldErrors.immutable('volumeBindingMode', sc.volumeBindingMode ?? null));
  return errs;
}

/** SetDefaults_StorageClass: Delete and Immediate when unset. */
function setDefaults(sc: StorageClass): void {
  sc.reclaimPolicy ??= 'Delete';
  sc.volumeBindingMode ??= 'Immediate';
}

function storageClassTable(defaultAnnotations: string[]): TableColumns {
  return {
    columns: [
      nameColumn,
      column('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
      column('ReclaimPolicy', 'string', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.'),
      column('VolumeBindingMode', 'string', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound. When unset, VolumeBindingImmediate is used.'),
      column('AllowVolumeExpansion', 'string', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
      ageColumn,
    ],
    cells: (obj, now) => {
      const sc = obj as StorageClass;
      const isDefault = defaultAnnotations.some((a) => sc.metadata?.annotations?.[a] === 'true');
      return [
        `${sc.metadata?.name ?? ''}${isDefault ? ' (default)' : ''}`, sc.provisioner ?? '', sc.reclaimPolicy ?? 'Delete',
        sc.volumeBindingMode ?? 'Immediate', sc.allowVolumeExpansion ?? false, translateTimestampSince(sc.metadata?.creationTimestamp, now),
      ];
    },
  };
}

export function storageClassResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('storage'), version: 'v1', kind: 'StorageClass', listKind: 'StorageClassList', resource: 'storageclasses',
    singular: 'storageclass', namespaced: false, shortNames: ['sc'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: storageClassSchema,
    table: storageClassTable(storageNames(naming).isDefaultClassAnnotations),
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, storageClassSchema, 'StorageClass'),
      prepareForCreate: (obj) => setDefaults(obj as StorageClass),
      prepareForUpdate: (obj) => setDefaults(obj as StorageClass),
      validate: (obj) => validate(obj as StorageClass),
      validateUpdate: (obj, old) => validateUpdate(obj as StorageClass, old as StorageClass),
    },
  };
}

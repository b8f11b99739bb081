/**
 * Namespace (core/v1, cluster-scoped). `spec.finalizers` holds the namespace controller's token;
 * a delete marks the namespace Terminating, the controller empties it and removes the token
 * through `/finalize`, and then the namespace goes. `status` changes only through `/status`.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { namespaceSchema } from './schema';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { isQualifiedName } from '../../../meta/validation';
import { Naming } from '../../../naming';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';

interface NamespaceSpec { finalizers?: string[] }

const spec = (obj: ApiObject): NamespaceSpec => (obj.spec ?? {}) as NamespaceSpec;

function validateFinalizers(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const list = spec(obj).finalizers;
  if (list !== undefined && !Array.isArray(list)) return [fieldErrors.invalid('spec.finalizers', list, 'must be a list of strings')];
  (list ?? []).forEach((f, i) => {
    const msgs = typeof f === 'string' ? isQualifiedName(f) : ['must be a string'];
    for (const m of msgs) errs.push(fieldErrors.invalid(`spec.finalizers[${i}]`, f, m));
  });
  return errs;
}

/** kubectl's NAME STATUS AGE: STATUS is status.phase (Active, Terminating). */
const namespaceTable: TableColumns = {
  columns: [nameColumn, column('Status', 'string', 'The status of the namespace'), ageColumn],
  cells: (obj, now) => [
    obj.metadata?.name ?? '',
    String((obj.status as { phase?: unknown } | undefined)?.phase ?? ''),
    translateTimestampSince(obj.metadata?.creationTimestamp, now),
  ],
};

export function namespaceResource(naming: Naming): ResourceDef {
  const nameLabel = `${naming.domain === 'k8s.io' ? 'kubernetes.io' : naming.domain}/metadata.name`;
  const setNameLabel = (obj: ApiObject) => {
    obj.metadata ??= {};
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [nameLabel]: String(obj.metadata.name ?? '') };
  };
  return {
    group: '', version: 'v1', kind: 'Namespace', listKind: 'NamespaceList', resource: 'namespaces', singular: 'namespace',
    namespaced: false, shortNames: ['ns'], categories: [],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [
      {
        name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'],
        applyUpdate: (incoming, current) => ({ ...current, status: incoming.status }),
      },
      {
        name: 'finalize', kind: 'Namespace', verbs: ['update'],
        applyUpdate: (incoming, current) => ({ ...current, spec: { ...spec(current), finalizers: spec(incoming).finalizers ?? [] } }),
      },
    ],
    deleteReturnsStatus: false,
    nameValidation: 'dns-label',
    schema: namespaceSchema,
    table: namespaceTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => (obj.spec !== undefined && (typeof obj.spec !== 'object' || Array.isArray(obj.spec))
        ? 'json: cannot unmarshal into Go struct field Namespace.spec of type v1.NamespaceSpec' : undefined),
      prepareForCreate: (obj) => {
        const finalizers = spec(obj).finalizers ?? [];
        obj.spec = { ...spec(obj), finalizers: finalizers.includes(naming.namespaceFinalizer) ? finalizers : [...finalizers, naming.namespaceFinalizer] };
        obj.status = { phase: 'Active' };
        setNameLabel(obj);
      },
      prepareForUpdate: (obj, old) => {
        obj.spec = { ...spec(obj), finalizers: spec(old).finalizers };
        obj.status = old.status;
        setNameLabel(obj);
      },
      validate: validateFinalizers,
      onDeleteRequested: (obj) => {
        obj.status = { ...((obj.status as object) ?? {}), phase: 'Terminating' };
      },
      blocksRemoval: (obj) => (spec(obj).finalizers?.length ?? 0) > 0,
      fieldSet: (obj) => ({ 'status.phase': String((obj.status as { phase?: string } | undefined)?.phase ?? '') }),
      selectableFields: ['status.phase'],
    },
  };
}

/**
 * PersistentVolume (core/v1, cluster-scoped, short name `pv`): storage supplied to claims.
 * Exactly one source; reclaim policy Retain and volume mode Filesystem by default; the source,
 * volume mode and a set node affinity are immutable; `status` (phase Pending on create)
 * changes only through `/status`. DELETE answers the object.
 *
 * Admission seam: the in-use protection finalizer (`kubernetes.io/pv-protection`) is added by
 * an admission plugin (StorageObjectInUseProtection) registered on the AdmissionChain
 * (lib/admission/interfaces.ts), not by this strategy.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { persistentVolumeSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { FeatureGates } from '../../../scheme/feature-gates';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { statusSubresource } from '../../status-subresource';
import { PersistentVolumeSpec, defaultPersistentVolumeSpec, validatePersistentVolumeSpec } from '../volumes/persistent-volume-spec';
import { MOUNT_OPTION_SOURCES, PERSISTENT_SOURCE_FIELDS, sourcesOf } from '../volumes/persistent-sources';
import { accessModesString, usesReadWriteOncePod } from '../volumes/access-modes';
import { StorageNames, storageNames } from '../storage-annotations';
import { describeDiff, semanticEqual } from '../semantic-equal';

const specOf = (obj: ApiObject): PersistentVolumeSpec => (obj.spec ?? {}) as PersistentVolumeSpec;
const statusOf = (obj: ApiObject): Record<string, unknown> => (obj.status ?? {}) as Record<string, unknown>;

/** The source fields of a spec, for the immutability rule. */
const sourceFields = (spec: PersistentVolumeSpec): Record<string, unknown> =>
  Object.fromEntries(PERSISTENT_SOURCE_FIELDS.filter((k) => spec[k] !== undefined).map((k) => [k, spec[k]]));

/** The class of a volume as kubectl shows it: the beta annotation first, then spec.storageClassName. */
export function volumeClass(obj: ApiObject, names: StorageNames): string {
  return obj.metadata?.annotations?.[names.storageClassAnnotation] ?? specOf(obj).storageClassName ?? '';
}

function persistentVolumeTable(names: StorageNames): TableColumns {
  return {
    columns: [
      nameColumn,
      column('Capacity', 'string', "capacity is the description of the persistent volume's resources and capacity."),
      column('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
      column('Reclaim Policy', 'string', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
      column('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
      column('Claim', 'string', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
      column('StorageClass', 'string', 'StorageClass of the pv'),
      column('Reason', 'string', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
      ageColumn,
      column('VolumeMode', 'string', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.', { priority: 1 }),
    ],
    cells: (obj, now) => {
      const spec = specOf(obj as ApiObject);
      const claim = spec.claimRef ? `${spec.claimRef.namespace ?? ''}/${spec.claimRef.name ?? ''}` : '';
      const phase = (obj.metadata as { deletionTimestamp?: string } | undefined)?.deletionTimestamp ? 'Terminating' : String(statusOf(obj as ApiObject).phase ?? '');
      return [
        obj.metadata?.name ?? '', String(spec.capacity?.storage ?? '0'), accessModesString(spec.accessModes),
        spec.persistentVolumeReclaimPolicy ?? '', phase, claim, volumeClass(obj as ApiObject, names),
        String(statusOf(obj as ApiObject).reason ?? ''), translateTimestampSince(obj.metadata?.creationTimestamp, now),
        spec.volumeMode ?? '<unset>',
      ];
    },
  };
}

export function persistentVolumeResource(naming: Naming, gates: FeatureGates): ResourceDef {
  const names = storageNames(naming);

  /** Fields of disabled gates are dropped unless the stored object already uses them. */
  const dropDisabled = (spec: PersistentVolumeSpec, old?: PersistentVolumeSpec) => {
    if (!gates.enabled('ExpandCSIVolumes') && !old?.csi?.controllerExpandSecretRef && spec.csi) delete spec.csi.controllerExpandSecretRef;
  };

  const validate = (obj: ApiObject, old?: ApiObject): FieldError[] => {
    const spec = specOf(obj);
    const allowReadWriteOncePod = gates.enabled('ReadWriteOncePod') || (!!old && usesReadWriteOncePod(specOf(old).accessModes));
    const errs = validatePersistentVolumeSpec(spec, obj.metadata?.name ?? '', false, 'spec', { allowReadWriteOncePod });
    const annotation = names.mountOptionsAnnotation;
    if (obj.metadata?.annotations?.[annotation] !== undefined && !sourcesOf(spec).some((s) => MOUNT_OPTION_SOURCES.includes(s))) {
      errs.push(fieldErrors.forbidden(`metadata.annotations.${annotation}`, 'may not specify mount options for this volume type'));
    }
    return errs;
  };

  const validateUpdate = (obj: ApiObject, old: ApiObject): FieldError[] => {
    const errs = validate(obj, old);
    const spec = specOf(obj);
    const oldSpec = specOf(old);
    const sources = sourceFields(spec);
    // A controller-expand secret may be added to a CSI volume that has none.
    if (oldSpec.csi && !oldSpec.csi.controllerExpandSecretRef && spec.csi?.controllerExpandSecretRef) {
      const { controllerExpandSecretRef: _added, ...csi } = spec.csi;
      sources.csi = csi;
    }
    const oldSources = sourceFields(oldSpec);
    if (!semanticEqual(sources, oldSources)) {
      errs.push(fieldErrors.forbidden('spec.persistentvolumesource',
        `spec.persistentvolumesource is immutable after creation\n${describeDiff(oldSources, sources, 'core.PersistentVolumeSource')}`));
    }
    if (!semanticEqual(spec.volumeMode, oldSpec.volumeMode)) errs.push(fieldErrors.immutable('volumeMode', spec.volumeMode ?? null));
    if (oldSpec.nodeAffinity && !semanticEqual(spec.nodeAffinity, oldSpec.nodeAffinity)) {
      errs.push(fieldErrors.immutable('nodeAffinity', spec.nodeAffinity ?? null));
    }
    return errs;
  };

  return {
    group: '', version: 'v1', kind: 'PersistentVolume', listKind: 'PersistentVolumeList', resource: 'persistentvolumes',
    singular: 'persistentvolume', namespaced: false, shortNames: ['pv'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [statusSubresource('PersistentVolume', (status) => ({ ...status, phase: status.phase || 'Pending' }))],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: persistentVolumeSchema,
    table: persistentVolumeTable(names),
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, persistentVolumeSchema, 'PersistentVolume'),
      prepareForCreate: (obj) => {
        const spec = (obj.spec ??= {}) as PersistentVolumeSpec;
        dropDisabled(spec);
        defaultPersistentVolumeSpec(spec, false);
        obj.status = { phase: 'Pending' };
      },
      prepareForUpdate: (obj, old) => {
        const spec = (obj.spec ??= {}) as PersistentVolumeSpec;
        dropDisabled(spec, specOf(old));
        defaultPersistentVolumeSpec(spec, false);
        obj.status = old.status;
      },
      validate: (obj) => validate(obj),
      validateUpdate,
      // Kubernetes keeps a field selector `name` (a bug it supports for compatibility).
      fieldSet: (obj) => ({ name: String(obj.metadata?.name ?? '') }),
      selectableFields: ['name'],
    },
  };
}

/**
 * A schemaless CrServingFactory: every served version of a CRD as a ResourceDef that keeps
 * whatever fields a client sends (x-kubernetes-preserve-unknown-fields everywhere), prints the
 * default custom resource Table (Name, Age), and is served over the same keys with `apiVersion`
 * relabelled to the version asked for (conversion `None`). No /status, no /scale. It serves the
 * CRD lifecycle until the full factory (cr-resource-def.ts: schemas, subresources, columns)
 * replaces it in server.ts.
 */
import { errors } from '../../meta/api-errors';
import { column, TableColumns } from '../../meta/table';
import { objectMeta } from '../../scheme/schemas/meta';
import { Schema } from '../../scheme/schema';
import { ApiObject, ResourceDef, Strategy } from '../../scheme/types';
import { servedOverStorage } from '../../registry/served-version';
import { crdSpec, crdStatus, crdVersions, storageVersionOf } from '../../registry/apiextensions/crd-view';
import { isTrue } from '../../registry/apiextensions/crd-conditions';
import type { CrServing, CrServingDeps } from './types';

/** Kubernetes' verbs of a custom resource, in its discovery order. */
export const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

const NAME_DESCRIPTION = 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.';
const CREATION_DESCRIPTION = 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists.';

/** A custom resource's default columns (tableconvertor): Name, then Age as the creation timestamp. */
export const defaultCrTable: TableColumns = {
  columns: [column('Name', 'string', NAME_DESCRIPTION, { format: 'name' }), column('Age', 'date', CREATION_DESCRIPTION)],
  cells: (obj) => [obj.metadata?.name ?? '', obj.metadata?.creationTimestamp ?? null],
};

/** Accepts any object: apiVersion, kind and metadata as every kind has them, the rest kept as sent. */
const schemalessSchema: Schema = {
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMeta },
};

/** Everything but metadata, as JSON: a change there is a spec change (generation + 1). */
function contentOf(obj: ApiObject): string {
  const { metadata: _m, ...rest } = obj;
  return JSON.stringify(rest);
}

function strategyFor(gr: { group: string; resource: string }, terminating: boolean): Strategy {
  return {
    prepareForCreate: (obj) => {
      // As Kubernetes' forbidCreateAdmission: a terminating CRD takes no new objects.
      if (terminating) throw errors.forbidden(gr, String(obj.metadata?.name ?? ''), 'create not allowed while custom resource definition is terminating');
      obj.metadata = { ...obj.metadata, generation: 1 };
    },
    specChanged: (obj, old) => contentOf(obj) !== contentOf(old),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
  };
}

/** The schemaless bundle of `crd` (names from status.acceptedNames, as Kubernetes serves them). */
export function buildBasicCrServing(crd: ApiObject, _deps: CrServingDeps): CrServing {
  const spec = crdSpec(crd);
  const accepted = crdStatus(crd).acceptedNames ?? {};
  const group = spec.group ?? '';
  const plural = accepted.plural ?? '';
  const kind = accepted.kind ?? '';
  const storageVersion = storageVersionOf(crd);
  if (!group || !plural || !kind || !storageVersion) throw new Error(`CustomResourceDefinition ${crd.metadata?.name} has no accepted names or storage version`);
  const terminating = !!crd.metadata?.deletionTimestamp || isTrue(crd, 'Terminating');
  const strategy = strategyFor({ group, resource: plural }, terminating);
  const defs = new Map<string, ResourceDef>();
  for (const v of crdVersions(spec)) {
    if (!v.served || !v.name) continue;
    const def: ResourceDef = {
      group, version: v.name, kind, listKind: accepted.listKind ?? `${kind}List`, resource: plural,
      singular: accepted.singular ?? kind.toLowerCase(), namespaced: spec.scope === 'Namespaced',
      shortNames: [...(accepted.shortNames ?? [])], categories: [...(accepted.categories ?? [])],
      verbs: [...CR_VERBS], subresources: [], strategy, deleteReturnsStatus: false, nameValidation: 'dns-subdomain',
      schema: schemalessSchema, table: defaultCrTable,
      ...(v.deprecated ? { deprecation: v.deprecationWarning ? { warning: v.deprecationWarning } : {} } : {}),
    };
    defs.set(v.name, servedOverStorage(def, storageVersion));
  }
  return {
    uid: String(crd.metadata?.uid ?? ''), name: String(crd.metadata?.name ?? ''), group, plural, keySegment: `${group}/${plural}`,
    storageVersion, defs, customHandlers: new Map(), terminating, generation: Number(crd.metadata?.generation ?? 0),
  };
}

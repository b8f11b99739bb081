/**
 * Definitions of the served kinds of one group/version: each kind (from its ResourceDef schema,
 * the schema the server validates and merges with), its List, and its struct-valued top-level
 * fields as their own definitions (`NamespaceSpec`, `NamespaceStatus`), as Kubernetes names them.
 */
import { ResourceDef } from '../../scheme/types';
import { Schema, str } from '../../scheme/schema';
import { namedTypeOf } from '../../scheme/type-names';
import { vendorExtensions } from './extensions';
import { definitionName, metaNames, upperFirst } from './schema-names';
import { Json, ref, SchemaWriter, writeSchema } from './schema-writer';
import { scaleKindAt } from '../handlers/scale';

const OWN_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

const METADATA_DESCRIPTION = 'Standard object\'s metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export const kindName = (def: ResourceDef): string => definitionName(def.group, def.version, def.kind);
export const listKindName = (def: ResourceDef): string => definitionName(def.group, def.version, def.listKind);

const gvkExtension = (w: SchemaWriter, group: string, version: string, kind: string) =>
  vendorExtensions(w.naming, { 'group-version-kind': [{ group, kind, version }] });

/** Struct-valued top-level fields of a kind, to be written as `<Kind><Field>` definitions. */
function kindParts(def: ResourceDef): [string, Schema][] {
  // A custom resource has no Go types: Kubernetes writes its schema inline (kubectl explain says `<Object>`).
  if (def.strategicMerge === false) return [];
  return Object.entries(def.schema.properties ?? {})
    // A field of a named Go type (lib/scheme/type-names.ts) is written as a reference to that type.
    .filter(([field, s]) => !OWN_FIELDS.has(field) && s.type === 'object' && !!s.properties && !namedTypeOf(s))
    .map(([field, s]) => [definitionName(def.group, def.version, `${def.kind}${upperFirst(field)}`), s]);
}

/** Adds the kinds' parts to `w.named` so that references to them are written; call before writing. */
export function nameKindParts(w: SchemaWriter, defs: readonly ResourceDef[]): void {
  for (const def of defs) {
    for (const [name, s] of kindParts(def)) if (!w.named.has(s)) w.named.set(s, name);
  }
}

function listDefinition(w: SchemaWriter, def: ResourceDef): Json {
  return {
    description: `${def.listKind} is a list of ${def.kind} objects.`,
    type: 'object',
    properties: {
      apiVersion: writeSchema(w, str('APIVersion defines the versioned schema of this representation of an object.')),
      items: { description: `Items is a list of ${def.kind} objects.`, type: 'array', items: ref(w, kindName(def), { default: {} }) },
      kind: writeSchema(w, str('Kind is a string value representing the REST resource this object represents.')),
      metadata: ref(w, metaNames.listMeta, { default: {}, description: 'Standard list metadata.' }),
    },
    required: ['items'],
    ...gvkExtension(w, def.group, def.version, def.listKind),
  };
}

/**
 * The definitions of `defs` (one group/version), keyed by name: kinds, Lists, parts, and a
 * loose object for a subresource kind that no def of the group/version describes.
 */
export function kindDefinitions(w: SchemaWriter, defs: readonly ResourceDef[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const def of defs) {
    const body = writeSchema(w, def.schema, true);
    const properties = (body.properties ?? {}) as Json;
    properties.metadata = ref(w, metaNames.objectMeta, { default: {}, description: METADATA_DESCRIPTION });
    body.properties = properties;
    out[kindName(def)] = { ...body, ...gvkExtension(w, def.group, def.version, def.kind) };
    if (def.verbs.includes('list')) out[listKindName(def)] = listDefinition(w, def);
    for (const [name, s] of kindParts(def)) if (w.named.get(s) === name) out[name] = writeSchema(w, s, true);
  }
  for (const def of defs) {
    for (const sub of def.subresources) {
      if (sub.connect) continue;
      const group = sub.group ?? def.group;
      const version = sub.version ?? def.version;
      const name = definitionName(group, version, sub.kind);
      // A built-in /scale answers an autoscaling/v1 Scale (a removed version's own Scale), a
      // named type: writing a reference to it puts its definition in the document.
      if (sub.scale) {
        writeSchema(w, scaleKindAt(group, version).schema);
        continue;
      }
      out[name] ??= {
        description: `${sub.kind}, the body of ${def.resource}/${sub.name}.`, type: 'object',
        ...vendorExtensions(w.naming, { 'preserve-unknown-fields': true }),
        ...gvkExtension(w, group, version, sub.kind),
      };
    }
  }
  return out;
}

/**
 * Vendor extensions in the served OpenAPI documents (`group-version-kind`, `action`, `list-type`,
 * `patch-strategy` ...).
 *
 * The spec names them with the flavor's prefix (`x-orch-*` in the orch flavor), but stock clients
 * read only `x-kubernetes-*`: kubectl finds a kind's PATCH operation (validation), its schema
 * (explain) and its merge keys (client-side apply) by those names. So the orch flavor emits both
 * spellings, its own and Kubernetes'; the kubernetes flavor emits Kubernetes' alone.
 */
import { Naming } from '../../naming';

/** How schemas store extensions (lib/scheme/schema.ts): under Kubernetes' prefix. */
export const STORED_PREFIX = 'x-kubernetes-';

const KUBERNETES_PREFIX = 'x-kubernetes-';

/** The prefixes every extension is written under, in output order. */
export function extensionPrefixes(naming: Naming): string[] {
  return naming.schemaExtensionPrefix === KUBERNETES_PREFIX ? [KUBERNETES_PREFIX] : [naming.schemaExtensionPrefix, KUBERNETES_PREFIX];
}

/** `{ 'group-version-kind': v }` -> `{ 'x-orch-group-version-kind': v, 'x-kubernetes-group-version-kind': v }` (orch). */
export function vendorExtensions(naming: Naming, extensions: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prefix of extensionPrefixes(naming)) {
    for (const [name, value] of Object.entries(extensions)) out[`${prefix}${name}`] = value;
  }
  return out;
}

/**
 * Field selectors of a custom-resource version: `metadata.name`, `metadata.namespace` (namespaced
 * kinds, handled by the store) and each `selectableFields[].jsonPath` without its leading dot.
 * A value is printed as Go's fmt.Sprint prints it (`true`, `42`); a missing or null field is "".
 */
import { ApiObject } from '../../scheme/types';
import { JsonPath, findResults, parseJsonPath } from './jsonpath';
import { goSprint } from './go-print';

/** The selectable fields of a version as a strategy needs them. */
export interface CrSelectableFields {
  /** Field names accepted by field selectors (`spec.color`), beyond metadata.name/namespace. */
  names: string[];
  /** The values of those fields for one object. */
  fieldSet(obj: ApiObject): Record<string, string>;
}

/**
 * Builds the selectable fields of a version from the CRD's `selectableFields` (validated at CRD
 * write time: simple paths to scalars, at most 8). Paths that select several values or fail take
 * "" rather than failing the list (Kubernetes reports an internal error for them; CRD validation
 * keeps such paths out).
 */
export function crSelectableFields(fields: Array<{ jsonPath?: string }> | undefined): CrSelectableFields {
  const parsed: Array<{ name: string; path?: JsonPath }> = [];
  for (const f of fields ?? []) {
    const jsonPath = String(f?.jsonPath ?? '');
    let path: JsonPath | undefined;
    try {
      path = parseJsonPath(jsonPath);
    } catch {
      path = undefined;
    }
    parsed.push({ name: jsonPath.replace(/^\./, ''), path });
  }
  return {
    names: parsed.map((p) => p.name),
    fieldSet: (obj) => {
      const out: Record<string, string> = {};
      for (const { name, path } of parsed) {
        let value: unknown;
        try {
          const results = path ? findResults(path, obj) : [];
          value = results.length === 1 ? results[0] : undefined;
        } catch {
          value = undefined;
        }
        out[name] = value === undefined || value === null ? '' : goSprint(value);
      }
      return out;
    },
  };
}

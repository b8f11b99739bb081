/**
 * LimitRange (core/v1, namespaced, short name `limits`): the bounds and defaults the LimitRanger
 * admission plugin (lib/admission/limitranger/) enforces on the pods and claims of its namespace.
 * Defaults as Kubernetes 1.32 writes them (SetDefaults_LimitRangeItem: a Container item's
 * default limit falls back to max, its default request to the default limit and then to min;
 * every quantity rounded up to milli units and written canonically), validation by
 * ./validation.ts on create and update alike, no status and no generation. kubectl's table
 * (printLimitRange: NAME, CREATED AT in RFC 3339) is the default one, so the def sets no `table`.
 * PUT may create and needs no resourceVersion; a LimitRange created without a name gets a UUID.
 */
import { randomUUID } from 'node:crypto';
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { Json, isObject, record } from '../json-fields';
import { canonicalResourceList } from '../resource-quantities';
import { limitRangeSchema } from './schema';
import { validateLimitRangeSpec } from './validation';

const KIND = 'LimitRange';
const LISTS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;

/** SetDefaults_LimitRangeItem for a Container item: fills absent keys of `to` from `from`. */
function fillFrom(item: Json, to: string, from: string): void {
  const source = record(item, from);
  if (!source) return;
  const target = record(item, to) ?? {};
  for (const [k, v] of Object.entries(source)) if (!Object.hasOwn(target, k)) target[k] = v;
  item[to] = target;
}

/** SetObjectDefaults_LimitRange: item defaults, then every ResourceList rounded and canonical; empty lists dropped (omitempty). */
export function defaultLimitRange(obj: ApiObject): void {
  const spec = isObject(obj.spec) ? obj.spec : (obj.spec = {});
  const limits = Array.isArray(spec.limits) ? spec.limits : [];
  for (const item of limits) {
    if (!isObject(item)) continue;
    if (item.type === 'Container') {
      fillFrom(item, 'default', 'max');
      fillFrom(item, 'defaultRequest', 'default');
      fillFrom(item, 'defaultRequest', 'min');
    }
    for (const list of LISTS) {
      if (!isObject(item[list])) continue;
      if (!Object.keys(item[list] as Json).length) delete item[list];
      else item[list] = canonicalResourceList(item[list]);
    }
  }
}

/** The LimitRange kind (the same in both flavors). */
export function limitRangeResource(): ResourceDef {
  return {
    group: '', version: 'v1', kind: KIND, listKind: 'LimitRangeList', resource: 'limitranges', singular: 'limitrange',
    namespaced: true, shortNames: ['limits'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: limitRangeSchema,
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, limitRangeSchema, KIND),
      default: defaultLimitRange,
      // Kubernetes' PrepareForCreate: a LimitRange sent without a name is named with a UUID (before generateName is looked at).
      prepareForCreate: (obj) => {
        const meta = obj.metadata ??= {};
        if (!meta.name) meta.name = randomUUID();
        defaultLimitRange(obj);
      },
      prepareForUpdate: defaultLimitRange,
      validate: (obj) => validateLimitRangeSpec(obj.spec as Json | undefined),
      validateUpdate: (obj) => validateLimitRangeSpec(obj.spec as Json | undefined),
    },
  };
}

/**
 * CustomResourceDefinition at apiextensions v1beta1: deprecated in 1.16 and removed in 1.22,
 * served here only when `--runtime-config` switches it on, with Kubernetes' deprecation warning.
 * Its objects are v1's (stored at v1): reads, lists, watches and writes convert through
 * v1beta1-conversion.ts, and the strategy hooks do what the v1 strategy does to the v1 form. A request at v1beta1 gets v1beta1's defaults (scope Namespaced,
 * preserveUnknownFields true, webhook conversionReviewVersions ["v1beta1"]...) and Kubernetes'
 * lenient validation of v1beta1 requests (validation.ts, v1beta1-validation.ts): a CRD created
 * here may have no schema, or a non-structural one when it preserves unknown fields; its custom
 * resources are then served unpruned (lib/apiextensions/serving).
 */
import { ApiObject, ObjectVersioning, ResourceDef, Strategy } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { decodeProblem } from '../../../scheme/decode-check';
import { customResourceDefinitionResource } from './definition';
import { crdSpecChanged, prepareCrdCreate, prepareCrdUpdate } from './strategy';
import { validateCrdCreate, validateCrdUpdate } from './validation';
import { crdToV1, crdToV1beta1, defaultCrdV1beta1 } from './v1beta1-conversion';
import { validateCrdV1beta1Spec } from './v1beta1-validation';
import { customResourceDefinitionV1beta1Schema } from './v1beta1-schema';

const KIND = 'CustomResourceDefinition';

/**
 * What the v1 strategy's `change` does to the metadata and status of the v1 form, done to the
 * v1beta1 object (in place). The spec stays as written, for validation to see what the v1 form
 * no longer shows (a top-level field beside per-version ones).
 */
function viaV1(obj: ApiObject, change: (v1: ApiObject) => void): void {
  const v1 = crdToV1(obj);
  change(v1);
  obj.metadata = v1.metadata;
  obj.status = v1.status;
}

/** Reads convert the stored v1 objects; writes store their v1 form. */
const versioning: ObjectVersioning = {
  fromStorage: async (objects) => objects.map(crdToV1beta1),
  toStorage: async (object) => crdToV1(object),
  servesStored: () => false,
};

/** The apiextensions v1beta1 def over v1's objects, off unless --runtime-config switches it on. */
export function customResourceDefinitionV1beta1Resource(naming: Naming): ResourceDef {
  const v1 = customResourceDefinitionResource(naming);
  const strategy: Strategy = {
    ...v1.strategy,
    checkDecode: (obj) => decodeProblem(obj, customResourceDefinitionV1beta1Schema, KIND),
    default: defaultCrdV1beta1,
    prepareForCreate: (obj) => { defaultCrdV1beta1(obj); viaV1(obj, prepareCrdCreate); },
    prepareForUpdate: (obj, old) => { defaultCrdV1beta1(obj); viaV1(obj, (o) => prepareCrdUpdate(o, crdToV1(old))); },
    validate: (obj) => [...validateCrdV1beta1Spec(obj), ...validateCrdCreate(crdToV1(obj), naming, 'v1beta1')],
    validateUpdate: (obj, old) => [...validateCrdV1beta1Spec(obj), ...validateCrdUpdate(crdToV1(obj), crdToV1(old), naming, 'v1beta1')],
    specChanged: (obj, old) => crdSpecChanged(crdToV1(obj), crdToV1(old)),
  };
  return {
    ...v1,
    version: 'v1beta1',
    schema: customResourceDefinitionV1beta1Schema,
    strategy,
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, 16], removedIn: [1, 22], replacement: { group: v1.group, version: 'v1', kind: KIND } },
    storageVersion: 'v1',
    versioning,
  };
}

/**
 * CustomResourceDefinition (apiextensions/v1, cluster-scoped, short names `crd`, `crds`,
 * category `api-extensions`): a kind that users define, stored and validated here; serving its
 * resources is the CRD serving machinery's (lib/apiextensions/). Status has its own endpoint;
 * Table is the default one (Name, Created At), as Kubernetes 1.32 has no printer for CRDs.
 */
import { ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { customResourceDefinitionSchema } from './schema';
import { decodeProblem } from '../../../scheme/decode-check';
import { defaultCrd } from './defaults';
import { validateCrdCreate, validateCrdUpdate } from './validation';
import { applyCrdStatusUpdate, crdSpecChanged, markCrdForDeletion, prepareCrdCreate, prepareCrdUpdate } from './strategy';

const KIND = 'CustomResourceDefinition';

/** The kind, in `apiextensions.<domain>`. */
export function customResourceDefinitionResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('apiextensions'), version: 'v1', kind: KIND, listKind: 'CustomResourceDefinitionList',
    resource: 'customresourcedefinitions', singular: 'customresourcedefinition', namespaced: false,
    shortNames: ['crd', 'crds'], categories: ['api-extensions'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ name: 'status', kind: KIND, verbs: ['get', 'patch', 'update'], applyUpdate: applyCrdStatusUpdate }],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: customResourceDefinitionSchema,
    strategy: {
      checkDecode: (obj) => decodeProblem(obj, customResourceDefinitionSchema, KIND),
      default: defaultCrd,
      prepareForCreate: prepareCrdCreate,
      prepareForUpdate: prepareCrdUpdate,
      validate: (obj) => validateCrdCreate(obj, naming),
      validateUpdate: (obj, old) => validateCrdUpdate(obj, old, naming),
      specChanged: crdSpecChanged,
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: false,
      // The first DELETE keeps the CRD (until the cleanup finalizer goes) and marks it.
      blocksRemoval: (obj) => !obj.metadata?.deletionTimestamp,
      onDeleteRequested: markCrdForDeletion(naming.crdCleanupFinalizer),
    },
  };
}

/**
 * IngressClass (networking.k8s.io/v1, cluster-scoped): the controller that implements a class
 * of Ingresses and its parameters. spec.controller is immutable; spec changes bump
 * metadata.generation. The class annotated `ingressclass.<domain>/is-default-class: "true"` is
 * what the DefaultIngressClass admission plugin gives Ingresses created without a class.
 * kubectl's NAME CONTROLLER PARAMETERS AGE table.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { Naming } from '../../../naming';
import { decodeProblem } from '../../../scheme/decode-check';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { semanticEqual } from '../../core/semantic-equal';
import { ingressClassSchema } from './schema';
import { defaultIngressClass, ingressClassSpecOf, validateIngressClassSpec, validateIngressClassUpdate } from './validation';

const KIND = 'IngressClass';

/** printIngressClass: PARAMETERS is `<kind>[.<apiGroup>]/<name>`, or `<none>`. */
const ingressClassTable: TableColumns = {
  columns: [
    nameColumn,
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    ageColumn,
  ],
  cells: (obj, now) => {
    const spec = ingressClassSpecOf(obj as ApiObject);
    const p = spec.parameters && typeof spec.parameters === 'object' ? spec.parameters as Record<string, unknown> : undefined;
    const parameters = p ? `${String(p.kind ?? '')}${typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : ''}/${String(p.name ?? '')}` : '<none>';
    return [obj.metadata?.name ?? '', String(spec.controller ?? ''), parameters, translateTimestampSince(obj.metadata?.creationTimestamp, now)];
  },
};

export function ingressClassResource(naming: Naming): ResourceDef {
  return {
    group: naming.group('networking'), version: 'v1', kind: KIND, listKind: 'IngressClassList',
    resource: 'ingressclasses', singular: 'ingressclass', namespaced: false, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: ingressClassSchema,
    table: ingressClassTable,
    strategy: {
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, ingressClassSchema, KIND),
      default: defaultIngressClass,
      prepareForCreate: (obj) => { obj.spec ??= {}; defaultIngressClass(obj); },
      prepareForUpdate: (obj) => { obj.spec ??= {}; defaultIngressClass(obj); },
      specChanged: (obj, old) => !semanticEqual(obj.spec ?? {}, old.spec ?? {}),
      validate: (obj) => validateIngressClassSpec(ingressClassSpecOf(obj)),
      validateUpdate: (obj, old) => validateIngressClassUpdate(obj, old),
    },
  };
}

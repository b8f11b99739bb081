/**
 * Endpoints (core/v1, namespaced, short name `ep`): the addresses and ports behind a Service,
 * written by kube-controller-manager's endpoints controller (and, for `default/kubernetes`, by
 * the server itself: lib/controllers/kubernetes-service/). Defaults (port protocol TCP) and
 * validation as Kubernetes 1.32's; no status, no generation. PUT creates (AllowCreateOnUpdate)
 * and may omit the resourceVersion, as Kubernetes' endpoints strategy allows.
 *
 * Not here: an `endpoints/restricted` check. Kubernetes does not make one (it is OpenShift's
 * RestrictedEndpointsAdmission); since 1.22 its bootstrap `edit` role simply no longer grants
 * writes to Endpoints.
 */
import { ApiObject, ResourceDef, StrategyContext } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { endpointsSchema } from './schema';
import { endpointsTable } from './table';
import { defaultEndpoints, validateEndpoints } from './validation';

const KIND = 'Endpoints';

/** The server's own `default/kubernetes` write (no request user) may carry a loopback advertise address. */
const ownKubernetesEndpoints = (obj: ApiObject, ctx: StrategyContext): boolean =>
  !ctx.user && obj.metadata?.name === 'kubernetes' && (obj.metadata?.namespace ?? ctx.namespace) === 'default';

export function endpointsResource(): ResourceDef {
  const validate = (obj: ApiObject, ctx: StrategyContext) => validateEndpoints(obj, { allowLoopback: ownKubernetesEndpoints(obj, ctx) });
  return {
    group: '', version: 'v1', kind: KIND, listKind: 'EndpointsList', resource: 'endpoints', singular: 'endpoints',
    namespaced: true, shortNames: ['ep'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    deleteReturnsStatus: false,
    nameValidation: 'dns-subdomain',
    schema: endpointsSchema,
    table: endpointsTable,
    strategy: {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => decodeProblem(obj, endpointsSchema, KIND),
      default: defaultEndpoints,
      prepareForCreate: defaultEndpoints,
      prepareForUpdate: (obj) => defaultEndpoints(obj),
      validate,
      validateUpdate: (obj, _old, ctx) => validate(obj, ctx),
    },
  };
}

/**
 * kube-apiserver's flag for the `default/kubernetes` Service's endpoints: which reconciler keeps
 * them (`lease`, the default: each replica holds a lease key for its advertise address; `none`:
 * no endpoints are written). Kubernetes' deprecated `master-count` reconciler (and its
 * `--apiserver-count`) is not offered: a start with it stops with the flag's one-line reason.
 * Parsed by lib/server/flags.ts.
 */
import { flag, oneOf, type FlagDef } from '../../flag-definitions';

export type EndpointReconcilerType = 'lease' | 'none';

export const KUBERNETES_SERVICE_FLAGS: readonly FlagDef[] = [
  flag('endpoint-reconciler-type', 'endpointReconcilerType', oneOf<EndpointReconcilerType>(['lease', 'none']), 'lease',
    'How the endpoints of the default/kubernetes Service are kept: lease (each replica renews a lease key for its '
    + '--advertise-address and the endpoints list the replicas whose lease is live) or none. kube-apiserver\'s '
    + 'deprecated master-count is not offered.'),
];

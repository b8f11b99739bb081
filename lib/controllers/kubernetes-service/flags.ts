/**
 * kube-apiserver's flags for the `default/kubernetes` Service's endpoints: which reconciler keeps
 * them (`lease`, the default: each replica holds a lease key for its advertise address; `none`:
 * nothing is written), and `--apiserver-count`, read only by Kubernetes' deprecated
 * `master-count` reconciler, which this server does not have (accepted without effect).
 * Parsed by lib/server/flags.ts.
 */
import { flag, int, INT_MAX, oneOf, type FlagDef } from '../../flag-definitions';

export type EndpointReconcilerType = 'lease' | 'none';

export const KUBERNETES_SERVICE_FLAGS: readonly FlagDef[] = [
  flag('endpoint-reconciler-type', 'endpointReconcilerType', oneOf<EndpointReconcilerType>(['lease', 'none']), 'lease',
    'How the endpoints of the default/kubernetes Service are kept: lease (each replica renews a lease key for its '
    + '--advertise-address and the endpoints list the replicas whose lease is live) or none. kube-apiserver\'s '
    + 'deprecated master-count is not offered.'),
  flag('apiserver-count', 'apiserverCount', int(1, INT_MAX), 1,
    'The number of API servers: read only by kube-apiserver\'s master-count endpoint reconciler, which this server '
    + 'does not have. Accepted so that kube-apiserver command lines start; giving it logs a warning.',
    { withoutEffect: true }),
];

/**
 * An endpoint's topology across EndpointSlice versions, as Kubernetes 1.32 converts and strategy
 * keeps it:
 * - v1beta1 -> v1 (pkg/apis/discovery/v1beta1/conversion.go): `topology` is copied into
 *   `deprecatedTopology`; its `topology.kubernetes.io/zone` key moves to `zone`; its
 *   `kubernetes.io/hostname` key becomes `nodeName` when that is unset and is dropped when it
 *   equals it; an empty remainder is dropped.
 * - v1 -> v1beta1: `topology` is `deprecatedTopology` plus the zone and, unless present, the node name.
 * - a write at v1 (strategy dropTopologyOnV1): `deprecatedTopology` is not writable and is
 *   dropped when the endpoints changed; a node name the old slice's deprecatedTopology held is
 *   carried into an unset `nodeName`.
 */
import { isDns1123Subdomain } from '../../../meta/validation';
import { semanticEqual } from '../../core/semantic-equal';
import { ApiObject } from '../../../scheme/types';
import { Endpoint, endpointsOf } from './validation';

export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';

const isMap = (v: unknown): v is Record<string, string> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Convert_v1beta1_Endpoint_To_discovery_Endpoint, in place on each endpoint of `obj`. */
export function endpointsFromV1beta1(obj: ApiObject): void {
  for (const ep of endpointsOf(obj)) {
    if (!ep || typeof ep !== 'object') continue;
    const topology = ep.topology;
    delete ep.topology;
    if (!isMap(topology)) continue;
    const deprecated: Record<string, string> = { ...topology };
    if (LABEL_ZONE in topology) { ep.zone = topology[LABEL_ZONE]; delete deprecated[LABEL_ZONE]; }
    if (LABEL_HOSTNAME in topology) {
      const node = topology[LABEL_HOSTNAME];
      if (ep.nodeName === undefined || ep.nodeName === null) { ep.nodeName = node; delete deprecated[LABEL_HOSTNAME]; } else if (node === ep.nodeName) delete deprecated[LABEL_HOSTNAME];
    }
    if (Object.keys(deprecated).length) ep.deprecatedTopology = deprecated;
    else delete ep.deprecatedTopology;
  }
}

/** Convert_discovery_Endpoint_To_v1beta1_Endpoint over a stored object (a copy). */
export function endpointsToV1beta1(obj: ApiObject): ApiObject {
  if (!Array.isArray(obj.endpoints)) return obj;
  const endpoints = (obj.endpoints as Endpoint[]).map((ep) => {
    if (!ep || typeof ep !== 'object') return ep;
    const { deprecatedTopology, zone, ...rest } = ep;
    const out: Endpoint = { ...rest };
    if (!isMap(deprecatedTopology) && (zone === undefined || zone === null) && (ep.nodeName === undefined || ep.nodeName === null)) return out;
    const topology: Record<string, string> = { ...(isMap(deprecatedTopology) ? deprecatedTopology : {}) };
    if (zone !== undefined && zone !== null) topology[LABEL_ZONE] = zone;
    if (ep.nodeName !== undefined && ep.nodeName !== null && !topology[LABEL_HOSTNAME]) topology[LABEL_HOSTNAME] = ep.nodeName;
    // Keep v1beta1's field order: topology before nodeName and hints.
    const { addresses, conditions, hostname, targetRef, nodeName, hints } = out;
    return dropUndefined({ addresses, conditions, hostname, targetRef, topology, nodeName, hints });
  });
  return { ...obj, endpoints };
}

const dropUndefined = (o: Endpoint): Endpoint =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Endpoint;

/** dropTopologyOnV1: a write at v1 (`old` absent on create). */
export function dropTopologyOnV1(obj: ApiObject, old?: ApiObject): void {
  if (old && semanticEqual(endpointsOf(old), endpointsOf(obj))) return;
  const previous = new Set<string>();
  for (const ep of old ? endpointsOf(old) : []) {
    const node = isMap(ep?.deprecatedTopology) ? ep.deprecatedTopology[LABEL_HOSTNAME] : undefined;
    if (node) previous.add(node);
  }
  for (const ep of endpointsOf(obj)) {
    if (!ep || typeof ep !== 'object') continue;
    const node = isMap(ep.deprecatedTopology) ? ep.deprecatedTopology[LABEL_HOSTNAME] : undefined;
    if ((ep.nodeName === undefined || ep.nodeName === null) && node !== undefined && previous.has(node) && !isDns1123Subdomain(node).length) ep.nodeName = node;
    delete ep.deprecatedTopology;
  }
}

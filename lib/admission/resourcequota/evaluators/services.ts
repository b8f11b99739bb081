/**
 * Kubernetes' service evaluator (services.go): count/services and services for every Service;
 * services.nodeports for NodePort and LoadBalancer Services (one per port, or for a LoadBalancer
 * with allocateLoadBalancerNodePorts false only the ports that name a nodePort), and
 * services.loadbalancers for LoadBalancers. Updates are charged too: the type may change.
 */
import { ApiObject } from '../../../scheme/types';
import { isObject, objects } from '../../pod/pod-json';
import { ResourceList, quantity } from '../resource-list';
import { Evaluator, matchesNoScope } from './types';

const SERVICE_RESOURCES = ['count/services', 'services', 'services.nodeports', 'services.loadbalancers'];

export const serviceEvaluator: Evaluator = {
  groupResource: '/services',
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (names) => names.filter((n) => SERVICE_RESOURCES.includes(n)),
  matchesScope: matchesNoScope,
  usage(svc: ApiObject): ResourceList {
    const spec = isObject(svc.spec) ? svc.spec : {};
    const ports = objects(spec, 'ports');
    const out: ResourceList = new Map([
      ['count/services', quantity(1)], ['services', quantity(1)], ['services.loadbalancers', quantity(0)], ['services.nodeports', quantity(0)],
    ]);
    if (spec.type === 'NodePort') out.set('services.nodeports', quantity(ports.length));
    if (spec.type === 'LoadBalancer') {
      const explicitOnly = spec.allocateLoadBalancerNodePorts === false;
      out.set('services.nodeports', quantity(explicitOnly ? ports.filter((p) => typeof p.nodePort === 'number' && p.nodePort !== 0).length : ports.length));
      out.set('services.loadbalancers', quantity(1));
    }
    return out;
  },
};

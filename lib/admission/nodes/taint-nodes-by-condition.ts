/**
 * TaintNodesByCondition (plugin/pkg/admission/nodetaint): a Node is created with the
 * `node.<domain>/not-ready:NoSchedule` taint (the flavor's label domain: `node.kubernetes.io` or
 * `node.orch.io`) unless it has one with that key and effect, so that nothing is scheduled on it
 * before the node lifecycle controller has seen it Ready and removed the taint. Updates and
 * subresources are left alone.
 */
import { AdmissionPlugin } from '../interfaces';
import { Naming } from '../../naming';

export function taintNodesByCondition(naming: Naming): AdmissionPlugin {
  const key = `node.${naming.labelDomain}/not-ready`;
  return {
    name: 'TaintNodesByCondition',
    resources: ['/nodes'],
    async admit(attrs) {
      if (attrs.operation !== 'CREATE' || attrs.subresource || attrs.resource.group !== '' || attrs.resource.resource !== 'nodes') return;
      const node = attrs.object;
      if (!node) return;
      const spec = (node.spec && typeof node.spec === 'object' && !Array.isArray(node.spec) ? node.spec : (node.spec = {})) as Record<string, unknown>;
      const taints = Array.isArray(spec.taints) ? spec.taints as Array<Record<string, unknown>> : [];
      if (taints.some((t) => t?.key === key && t?.effect === 'NoSchedule')) return;
      spec.taints = [...taints, { key, effect: 'NoSchedule' }];
    },
  };
}

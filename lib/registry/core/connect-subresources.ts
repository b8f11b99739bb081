/**
 * The connect subresources of core/v1, as kube-apiserver's discovery lists them: pods/log,
 * pods/exec, pods/attach, pods/portforward, pods/proxy, nodes/proxy and services/proxy. Their
 * handlers (lib/kubelet) dial the kubelet or the pod; here they are only declared, so the
 * dispatcher routes them and discovery names them. Added to the Pod, Node and Service kinds where
 * those are served (withConnectSubresources), so the kinds' own folders need not know of them.
 */
import type { ResourceDef, SubresourceDef } from '../../scheme/types';

const PROXY_VERBS = ['create', 'delete', 'get', 'patch', 'update'];

const byResource: Record<string, SubresourceDef[]> = {
  pods: [
    { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'], connect: true },
    { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'], connect: true },
    { name: 'log', kind: 'Pod', verbs: ['get'], connect: true },
    { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'], connect: true },
    { name: 'proxy', kind: 'PodProxyOptions', verbs: PROXY_VERBS, connect: true },
  ],
  nodes: [{ name: 'proxy', kind: 'NodeProxyOptions', verbs: PROXY_VERBS, connect: true }],
  services: [{ name: 'proxy', kind: 'ServiceProxyOptions', verbs: PROXY_VERBS, connect: true }],
};

/** The definitions, with core/v1 pods, nodes and services given the connect subresources they lack. */
export function withConnectSubresources(defs: ResourceDef[]): ResourceDef[] {
  return defs.map((def) => {
    const subs = def.group === '' && def.version === 'v1' ? byResource[def.resource] : undefined;
    if (!subs) return def;
    const missing = subs.filter((s) => !def.subresources.some((have) => have.name === s.name));
    return missing.length ? { ...def, subresources: [...def.subresources, ...missing] } : def;
  });
}

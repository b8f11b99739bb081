/**
 * Who references what, for the Node mode (Kubernetes' node authorizer graph): pods bound to a
 * node and the secrets, configmaps, claims and service accounts they name; persistent volumes
 * and the claim they are bound to and the secrets they hand over; volume attachments and their
 * node. Kubernetes keeps a general graph and walks it; every path here is one of a few fixed
 * shapes, so each object type keeps counts per node and a question is two or three map reads.
 *
 *   node <- pod <- secret | configmap | pvc | serviceaccount
 *   node <- pod <- pvc <- pv <- secret
 *   node <- volumeattachment
 */
import { ApiObject } from '../../scheme/types';
import { persistentVolumeSecrets, podReferences } from './references';

/** The kinds of object a node may be related to. */
export type VertexKind = 'pod' | 'secret' | 'configmap' | 'pvc' | 'serviceaccount' | 'pv' | 'volumeattachment';

const key = (kind: VertexKind, namespace: string, name: string): string => `${kind}\u0000${namespace}\u0000${name}`;

interface BoundPod {
  node: string;
  /** Keys of what the pod names (counted once per pod in `namedByPods`). */
  refs: string[];
}

interface BoundVolume {
  /** Key of the claim the volume's claimRef names. */
  claim: string;
  secrets: string[];
}

export class NodeGraph {
  private readonly pods = new Map<string, BoundPod>();
  /** Object key -> node -> how many pods on that node name the object. */
  private readonly namedByPods = new Map<string, Map<string, number>>();
  private readonly volumes = new Map<string, BoundVolume>();
  /** Secret key -> names of the volumes that hand it over. */
  private readonly volumesBySecret = new Map<string, Set<string>>();
  private readonly attachments = new Map<string, string>();

  /**
   * @param mirrorAnnotation pods carrying it (mirror pods, which a node may create) relate the
   *   node to nothing but themselves: a node must not gain access by creating a pod.
   */
  constructor(private readonly mirrorAnnotation: string) {}

  /** A pod created or changed: bound to spec.nodeName, or forgotten while it has none. */
  setPod(pod: ApiObject): void {
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    this.removePod(namespace, name);
    const spec = pod.spec as { nodeName?: unknown } | undefined;
    const node = typeof spec?.nodeName === 'string' ? spec.nodeName : '';
    if (!node) return;
    const refs: string[] = [];
    if (!Object.prototype.hasOwnProperty.call(pod.metadata?.annotations ?? {}, this.mirrorAnnotation)) {
      const r = podReferences(pod);
      if (r.serviceAccount) refs.push(key('serviceaccount', namespace, r.serviceAccount));
      for (const s of r.secrets) refs.push(key('secret', namespace, s));
      for (const c of r.configMaps) refs.push(key('configmap', namespace, c));
      for (const c of r.claims) refs.push(key('pvc', namespace, c));
    }
    this.pods.set(key('pod', namespace, name), { node, refs });
    for (const ref of refs) {
      let perNode = this.namedByPods.get(ref);
      if (!perNode) this.namedByPods.set(ref, perNode = new Map());
      perNode.set(node, (perNode.get(node) ?? 0) + 1);
    }
  }

  removePod(namespace: string, name: string): void {
    const k = key('pod', namespace, name);
    const bound = this.pods.get(k);
    if (!bound) return;
    this.pods.delete(k);
    for (const ref of bound.refs) {
      const perNode = this.namedByPods.get(ref);
      const n = perNode?.get(bound.node) ?? 0;
      if (n > 1) perNode!.set(bound.node, n - 1);
      else {
        perNode?.delete(bound.node);
        if (perNode?.size === 0) this.namedByPods.delete(ref);
      }
    }
  }

  /** A persistent volume created or changed: related only while its claimRef names a claim. */
  setPersistentVolume(pv: ApiObject): void {
    const name = pv.metadata?.name ?? '';
    this.removePersistentVolume(name);
    const claimRef = (pv.spec as { claimRef?: { namespace?: unknown; name?: unknown } } | undefined)?.claimRef;
    if (!claimRef || typeof claimRef !== 'object') return;
    const claimNamespace = typeof claimRef.namespace === 'string' ? claimRef.namespace : '';
    const claimName = typeof claimRef.name === 'string' ? claimRef.name : '';
    const secrets = persistentVolumeSecrets(pv).map((s) => key('secret', s.namespace, s.name));
    this.volumes.set(name, { claim: key('pvc', claimNamespace, claimName), secrets });
    for (const s of secrets) {
      let names = this.volumesBySecret.get(s);
      if (!names) this.volumesBySecret.set(s, names = new Set());
      names.add(name);
    }
  }

  removePersistentVolume(name: string): void {
    const bound = this.volumes.get(name);
    if (!bound) return;
    this.volumes.delete(name);
    for (const s of bound.secrets) {
      const names = this.volumesBySecret.get(s);
      names?.delete(name);
      if (names?.size === 0) this.volumesBySecret.delete(s);
    }
  }

  /** A volume attachment created or changed; an empty node relates it to none. */
  setVolumeAttachment(name: string, node: string): void {
    if (node) this.attachments.set(name, node);
    else this.attachments.delete(name);
  }

  removeVolumeAttachment(name: string): void {
    this.attachments.delete(name);
  }

  /** Whether `node` is related to the object (cluster-scoped kinds have namespace ''). */
  hasPath(node: string, kind: VertexKind, namespace: string, name: string): boolean {
    switch (kind) {
      case 'pod': return this.pods.get(key('pod', namespace, name))?.node === node;
      case 'volumeattachment': return this.attachments.get(name) === node;
      case 'pv': return this.volumeOnNode(name, node);
      case 'secret': {
        if (this.namedByPod(key('secret', namespace, name), node)) return true;
        for (const pv of this.volumesBySecret.get(key('secret', namespace, name)) ?? []) {
          if (this.volumeOnNode(pv, node)) return true;
        }
        return false;
      }
      default: return this.namedByPod(key(kind, namespace, name), node);
    }
  }

  private namedByPod(k: string, node: string): boolean {
    return (this.namedByPods.get(k)?.get(node) ?? 0) > 0;
  }

  private volumeOnNode(pv: string, node: string): boolean {
    const bound = this.volumes.get(pv);
    return !!bound && this.namedByPod(bound.claim, node);
  }

  /** Counts, for tests and diagnostics. */
  get size(): { pods: number; objects: number; volumes: number; attachments: number } {
    return { pods: this.pods.size, objects: this.namedByPods.size, volumes: this.volumes.size, attachments: this.attachments.size };
  }
}

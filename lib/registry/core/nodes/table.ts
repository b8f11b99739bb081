/**
 * kubectl's Node columns (printNode in pkg/printers/internalversion/printers.go): NAME STATUS
 * ROLES AGE VERSION, and with `-o wide` INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION
 * CONTAINER-RUNTIME. STATUS is `Ready` / `NotReady` from the Ready condition (`Unknown` without
 * one) plus `,SchedulingDisabled` when cordoned; ROLES come from the `node-role.<domain>/<role>`
 * and `<domain>/role` labels (the flavor's label domain), sorted, `<none>` without any.
 */
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { Naming } from '../../../naming';
import { Json, isObject, records, text } from '../json-fields';

const ADDRESSES = 'List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node\'s address in its own status or consumers of the downward API (status.hostIP).';

/** The node's roles from its labels, sorted and without repeats. */
export function nodeRoles(labels: Record<string, string> | undefined, naming: Naming): string[] {
  const prefix = `node-role.${naming.labelDomain}/`;
  const roleLabel = `${naming.labelDomain}/role`;
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith(prefix)) {
      if (k.length > prefix.length) roles.add(k.slice(prefix.length));
    } else if (k === roleLabel && v !== '') {
      roles.add(v);
    }
  }
  return [...roles].sort();
}

/** The STATUS cell: the Ready condition's word, then SchedulingDisabled when unschedulable. */
export function nodeStatusCell(node: Json): string {
  const spec = isObject(node.spec) ? node.spec : {};
  const status = isObject(node.status) ? node.status : {};
  const words: string[] = [];
  const ready = records(status, 'conditions').filter((c) => c.type === 'Ready').pop();
  if (ready) words.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  if (words.length === 0) words.push('Unknown');
  if (spec.unschedulable === true) words.push('SchedulingDisabled');
  return words.join(',');
}

const firstAddress = (status: Json, type: string): string =>
  records(status, 'addresses').find((a) => a.type === type)?.address as string | undefined ?? '<none>';

export function nodeTable(naming: Naming): TableColumns {
  return {
    columns: [
      nameColumn,
      column('Status', 'string', 'The status of the node'),
      column('Roles', 'string', 'The roles of the node'),
      ageColumn,
      column('Version', 'string', 'Kubelet Version reported by the node.'),
      column('Internal-IP', 'string', ADDRESSES, { priority: 1 }),
      column('External-IP', 'string', ADDRESSES, { priority: 1 }),
      column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', { priority: 1 }),
      column('Kernel-Version', 'string', 'Kernel Version reported by the node from \'uname -r\' (e.g. 3.16.0-0.bpo.4-amd64).', { priority: 1 }),
      column('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', { priority: 1 }),
    ],
    cells: (obj, now) => {
      const node = obj as Json;
      const status = isObject(node.status) ? node.status : {};
      const info = isObject(status.nodeInfo) ? status.nodeInfo : {};
      const orUnknown = (key: string) => text(info, key) || '<unknown>';
      const roles = nodeRoles(obj.metadata && (obj.metadata as { labels?: Record<string, string> }).labels, naming);
      return [
        obj.metadata?.name ?? '', nodeStatusCell(node), roles.join(',') || '<none>',
        translateTimestampSince(obj.metadata?.creationTimestamp, now), text(info, 'kubeletVersion'),
        firstAddress(status, 'InternalIP'), firstAddress(status, 'ExternalIP'),
        orUnknown('osImage'), orUnknown('kernelVersion'), orUnknown('containerRuntimeVersion'),
      ];
    },
  };
}

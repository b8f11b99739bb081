/**
 * The static rules of a node agent (Kubernetes' bootstrappolicy NodeRules, in the flavor's group
 * names): what the Node mode grants every node alike, and what the system:node ClusterRole holds.
 * The Node mode narrows secrets, configmaps, claims, volumes, attachments and tokens to the
 * objects the node's pods reference before these rules are consulted.
 */
import { Naming } from '../../naming';
import { PolicyRule } from '../../registry/rbac/types';

const READ = ['get', 'list', 'watch'];

function rule(verbs: string[], apiGroup: string, resources: string[]): PolicyRule {
  return { verbs, apiGroups: [apiGroup], resources };
}

/** A fresh list each call (callers may keep or change theirs), in Kubernetes' order. */
export function nodeRules(naming: Naming): PolicyRule[] {
  const core = '';
  const storage = naming.group('storage');
  return [
    // Checking API access: these creates change nothing.
    rule(['create'], naming.group('authentication'), ['tokenreviews']),
    rule(['create'], naming.group('authorization'), ['subjectaccessreviews', 'localsubjectaccessreviews']),
    // Service environment variables of pods.
    rule(READ, core, ['services']),
    // Registering its Node and reporting status (NodeRestriction admission narrows to its own).
    rule(['create', 'get', 'list', 'watch'], core, ['nodes']),
    rule(['update', 'patch'], core, ['nodes/status']),
    rule(['update', 'patch'], core, ['nodes']),
    rule(['create', 'update', 'patch'], core, ['events']),
    rule(READ, core, ['pods']),
    // Mirror pods, pod status and evictions of its pods.
    rule(['create', 'delete'], core, ['pods']),
    rule(['update', 'patch'], core, ['pods/status']),
    rule(['create'], core, ['pods/eviction']),
    // What pods mount or read (the Node mode limits these to its pods' references).
    rule(READ, core, ['secrets', 'configmaps']),
    rule(['get'], core, ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], core, ['endpoints']),
    // Rotating its own client certificate.
    rule(['create', 'get', 'list', 'watch'], naming.group('certificates'), ['certificatesigningrequests']),
    rule(['get', 'create', 'update', 'patch', 'delete'], naming.group('coordination'), ['leases']),
    rule(['get'], storage, ['volumeattachments']),
    rule(['create'], core, ['serviceaccounts/token']),
    rule(['get', 'update', 'patch'], core, ['persistentvolumeclaims/status']),
    rule(READ, storage, ['csidrivers']),
    rule(['get', 'create', 'update', 'patch', 'delete'], storage, ['csinodes']),
    rule(READ, naming.group('node'), ['runtimeclasses']),
  ];
}

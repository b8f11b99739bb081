/**
 * The Node mode (Kubernetes' node authorizer): a node agent, user `system:node:<name>` in group
 * `system:nodes`, may read the secrets, configmaps, claims and volumes that pods bound to it
 * reference, the volume attachments on it, tokens of its pods' service accounts, and its own
 * Node, Lease and CSINode; anything else is asked of the static node rules. Other users get no
 * opinion. Decisions read only the in-memory NodeGraph.
 *
 * Requests here carry no field selectors, so a list or watch never names one object: where
 * Kubernetes lets a node list or watch a single object (`fieldSelector=metadata.name=x`) or its
 * own pods (`spec.nodeName=x`), such requests are refused with Kubernetes' reason.
 */
import { AuthorizationAttributes } from '../attributes';
import { AuthorizationResult, Authorizer, RuleResolver, RulesResult, allow, noOpinion } from '../authorizer';
import { rulesAllow } from '../rbac/rule-match';
import { PolicyRule } from '../../registry/rbac/types';
import { UserInfo } from '../../meta/user';
import { Naming } from '../../naming';
import { parseFieldSelectorSyntax, requirementFor } from '../../meta/field-selector';
import { NodeGraph, VertexKind } from './graph';

const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';

/** The node a user speaks for: undefined when not a node user; '' when the name is missing. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

const ALLOWED = allow('');
const NOTHING = noOpinion('');

/** The node a `spec.nodeName=<node>` (or `==`) field selector asks for; undefined without one or when it does not parse. */
function selectedNodeName(selector: string | undefined): string | undefined {
  if (!selector) return undefined;
  try {
    return requirementFor(parseFieldSelectorSyntax(selector), 'spec.nodeName');
  } catch {
    return undefined;
  }
}

export class NodeAuthorizer implements Authorizer, RuleResolver {
  private readonly storageGroup: string;
  private readonly coordinationGroup: string;
  /** Kubernetes' kube-node-lease, in the flavor's spelling. */
  private readonly leaseNamespace: string;

  constructor(private readonly graph: NodeGraph, private readonly rules: readonly PolicyRule[], naming: Naming) {
    this.storageGroup = naming.group('storage');
    this.coordinationGroup = naming.group('coordination');
    this.leaseNamespace = naming.nodeLeaseNamespace;
  }

  authorize(a: AuthorizationAttributes): AuthorizationResult {
    const node = nodeIdentity(a.user);
    if (node === undefined) return NOTHING;
    if (!node) return noOpinion(`unknown node for user ${JSON.stringify(a.user.name)}`);
    if (a.isResourceRequest) {
      const decided = this.byResource(node, a);
      if (decided) return decided;
    }
    return rulesAllow(a, this.rules) ? ALLOWED : NOTHING;
  }

  /** Kinds the mode narrows to related objects; undefined for the rest (the static rules decide). */
  private byResource(node: string, a: AuthorizationAttributes): AuthorizationResult | undefined {
    if (a.apiGroup === '') {
      switch (a.resource) {
        case 'secrets': return this.readNamespaced(node, 'secret', a);
        case 'configmaps': return this.readNamespaced(node, 'configmap', a);
        case 'persistentvolumeclaims':
          return a.subresource === 'status' ? this.statusUpdate(node, 'pvc', a) : this.getOnly(node, 'pvc', a);
        case 'persistentvolumes': return this.getOnly(node, 'pv', a);
        case 'serviceaccounts': return this.createToken(node, a);
        case 'nodes': return this.ownNode(node, a);
        case 'pods': return this.pod(node, a);
        default: return undefined;
      }
    }
    if (a.apiGroup === this.storageGroup) {
      if (a.resource === 'volumeattachments') return this.getOnly(node, 'volumeattachment', a);
      if (a.resource === 'csinodes') return this.csiNode(node, a);
    }
    if (a.apiGroup === this.coordinationGroup && a.resource === 'leases') return this.lease(node, a);
    return undefined;
  }

  private related(node: string, kind: VertexKind, a: AuthorizationAttributes): AuthorizationResult {
    if (!a.name) return noOpinion('No Object name found');
    return this.graph.hasPath(node, kind, a.namespace, a.name) ? ALLOWED : unrelated(node);
  }

  /** Secrets and configmaps: a read of one named object in a namespace. */
  private readNamespaced(node: string, kind: VertexKind, a: AuthorizationAttributes): AuthorizationResult {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(node, kind, a);
  }

  private getOnly(node: string, kind: VertexKind, a: AuthorizationAttributes): AuthorizationResult {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource) return noOpinion('cannot get subresource');
    return this.related(node, kind, a);
  }

  private statusUpdate(node: string, kind: VertexKind, a: AuthorizationAttributes): AuthorizationResult {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, kind, a);
  }

  /** The `token` subresource of its pods' service accounts, nothing else of service accounts. */
  private createToken(node: string, a: AuthorizationAttributes): AuthorizationResult {
    if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.graph.hasPath(node, 'serviceaccount', a.namespace, a.name) ? ALLOWED : unrelated(node);
  }

  /** Its own lease, in the node-lease namespace (a create names no object: admission checks it). */
  private lease(node: string, a: AuthorizationAttributes): AuthorizationResult {
    if (!OWN_OBJECT_VERBS.has(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== this.leaseNamespace) {
      return noOpinion(`can only access leases in the ${JSON.stringify(this.leaseNamespace)} system namespace`);
    }
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOWED;
  }

  /** Its own CSINode (named after it; a create names no object: admission checks it). */
  private csiNode(node: string, a: AuthorizationAttributes): AuthorizationResult {
    if (!OWN_OBJECT_VERBS.has(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (a.subresource) return noOpinion('cannot authorize CSINode subresources');
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
    return ALLOWED;
  }

  /** Its own Node object; writes are left to admission (NodeRestriction), as in Kubernetes. */
  private ownNode(node: string, a: AuthorizationAttributes): AuthorizationResult {
    if (!a.subresource) {
      if (a.verb === 'create' || a.verb === 'update' || a.verb === 'patch') return ALLOWED;
      if (a.verb === 'get' || a.verb === 'list' || a.verb === 'watch') {
        if (a.name === node) return ALLOWED;
        return noOpinion(a.name
          ? `node '${node}' cannot read '${a.name}', only its own Node object`
          : `node '${node}' cannot read all nodes, only its own Node object`);
      }
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) return ALLOWED;
    return NOTHING;
  }

  /** Pods bound to it; mirror pods, status and evictions are left to admission, as in Kubernetes. */
  private pod(node: string, a: AuthorizationAttributes): AuthorizationResult {
    switch (a.subresource) {
      case '':
        if (a.verb === 'get') return this.getOnly(node, 'pod', a);
        if (a.verb === 'list' || a.verb === 'watch') {
          if (a.name) return this.related(node, 'pod', a);
          // AuthorizeNodeWithSelectors (on in 1.32): its own pods, by `spec.nodeName=<node>`.
          return selectedNodeName(a.fieldSelector) === node ? ALLOWED : noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        if (a.verb === 'create' || a.verb === 'delete') return ALLOWED;
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return ALLOWED;
        break;
      case 'eviction':
        if (a.verb === 'create') return ALLOWED;
        break;
    }
    return NOTHING;
  }

  /** Kubernetes cannot list a node's permissions either: incomplete, with its reason. */
  rulesFor(user: UserInfo): RulesResult {
    if (nodeIdentity(user) === undefined) return { rules: [], incomplete: false, errors: [] };
    return { rules: [], incomplete: true, errors: ['node authorizer does not support user rule resolution'] };
  }
}

const OWN_OBJECT_VERBS = new Set(['get', 'create', 'update', 'patch', 'delete']);

function unrelated(node: string): AuthorizationResult {
  return noOpinion(`no relationship found between node '${node}' and this object`);
}

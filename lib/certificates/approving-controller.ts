/**
 * The csrapproving controller (Kubernetes' sarApprover): approves a pending node client request
 * (signer `<labelDomain>/kube-apiserver-client-kubelet`, subject and usages of a kubelet client
 * certificate) when its requester may `create` `certificatesigningrequests/selfnodeclient` (a node
 * renewing its own certificate: the requester is the subject's CN) or
 * `certificatesigningrequests/nodeclient` (typically a bootstrap token, through a binding of
 * system:bootstrappers to the nodeclient role). The question is put to the authorization chain as
 * a SubjectAccessReview for the requester recorded in the request's spec would put it. A recognised
 * request that is not allowed is looked at again later (a binding may appear).
 */
import { GenericStore } from '../registry/store';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { Authorizer } from '../authz/authorizer';
import { UserInfo } from '../meta/user';
import { approvalState, conditionTime, CsrSpec, hasCertificate, specOf, usagesOf } from './csr-conditions';
import { CSR_RESOURCE, CsrController, csrStore, IgnorableError } from './csr-controller-base';
import { ParsedCsr, parseCsr } from '../registry/certificates/csr-parse';
import { isKubeletClientCsr } from './signer-rules';

interface Recognizer {
  subresource: string;
  recognize(spec: CsrSpec, csr: ParsedCsr, usages: string[]): boolean;
  message: string;
}

/** The requester a request's spec records (spec.username, uid, groups, extra). */
function requesterOf(spec: CsrSpec): UserInfo {
  const groups = Array.isArray(spec.groups) ? spec.groups.map(String) : [];
  const extra: Record<string, string[]> = {};
  if (spec.extra && typeof spec.extra === 'object') {
    for (const [k, v] of Object.entries(spec.extra as Record<string, unknown>)) if (Array.isArray(v)) extra[k] = v.map(String);
  }
  return { name: String(spec.username ?? ''), uid: spec.uid ? String(spec.uid) : undefined, groups, extra };
}

export class ApprovingController extends CsrController {
  private readonly recognizers: Recognizer[];
  private readonly group: string;
  private readonly fieldManagerName: string;

  constructor(store: GenericStore, naming: Naming, private readonly authorizer: () => Authorizer | undefined) {
    super(store, 'csrapproving controller');
    this.group = naming.group('certificates');
    this.fieldManagerName = CsrController.fieldManager(naming.flavor);
    const kubeletClient = `${naming.labelDomain}/kube-apiserver-client-kubelet`;
    const nodeClient = (spec: CsrSpec, csr: ParsedCsr, usages: string[]) => spec.signerName === kubeletClient && isKubeletClientCsr(csr, usages);
    this.recognizers = [
      {
        subresource: 'selfnodeclient',
        recognize: (spec, csr, usages) => spec.username === csr.commonName && nodeClient(spec, csr, usages),
        message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
      },
      {
        subresource: 'nodeclient',
        recognize: nodeClient,
        message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
      },
    ];
  }

  /** The controller when the server serves CertificateSigningRequest, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming, authorizer: () => Authorizer | undefined): ApprovingController | undefined {
    const store = csrStore(stores, naming.group('certificates'));
    return store ? new ApprovingController(store, naming, authorizer) : undefined;
  }

  protected interesting(csr: ApiObject): boolean {
    const { approved, denied } = approvalState(csr);
    return !approved && !denied && !hasCertificate(csr);
  }

  protected async handle(csr: ApiObject): Promise<void> {
    if (!this.interesting(csr)) return;
    const spec = specOf(csr);
    let parsed: ParsedCsr;
    try {
      parsed = parseCsr(spec.request);
    } catch {
      return; // validated on creation: nothing to approve
    }
    const usages = usagesOf(csr);
    const tried: string[] = [];
    for (const r of this.recognizers) {
      if (!r.recognize(spec, parsed, usages)) continue;
      tried.push(r.subresource);
      if (!await this.allowed(requesterOf(spec), r.subresource)) continue;
      await this.store.updateWith({}, String(csr.metadata?.name), (cur) => {
        const status = (cur.status ?? {}) as { conditions?: unknown[] };
        const conditions = Array.isArray(status.conditions) ? status.conditions : [];
        const approval = { type: 'Approved', status: 'True', reason: 'AutoApproved', message: r.message, lastUpdateTime: conditionTime() };
        return { ...cur, status: { ...status, conditions: [...conditions, approval] } };
      }, { dryRun: false, fieldManager: this.fieldManagerName, subresource: 'approval', precondition: csr.metadata?.resourceVersion as string });
      return;
    }
    if (tried.length) {
      throw new IgnorableError(`recognized csr ${JSON.stringify(csr.metadata?.name)} as [${tried.join(' ')}] but subject access review was not approved`);
    }
  }

  /** A SubjectAccessReview: may `user` create certificatesigningrequests/<subresource>? Errors deny. */
  private async allowed(user: UserInfo, subresource: string): Promise<boolean> {
    const authorizer = this.authorizer();
    if (!authorizer) return false;
    try {
      const result = await authorizer.authorize({
        user, verb: 'create', isResourceRequest: true, path: '', httpMethod: '', apiGroup: this.group, apiVersion: '*',
        resource: CSR_RESOURCE, subresource, namespace: '', name: '',
      });
      return result.decision === 'allow';
    } catch {
      return false;
    }
  }
}

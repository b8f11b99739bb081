/**
 * certificates/v1beta1 CertificateSigningRequest's pure parts: v1beta1's defaults (usages, the
 * signerName taken from the request), its looser validation beside v1's, and its protobuf
 * (v1's fields, signerName a pointer); the authorization/v1beta1 spec conversion (`group` for
 * v1's `groups`) and the v1beta1 access reviews' protobuf.
 */
import { expect } from 'chai';
import { makeCsrPem, requestField } from '../../../helpers/csr-request';
import { defaultSignerName, defaultSpecV1beta1 } from '../../../../lib/registry/certificates/certificate-signing-requests/v1beta1';
import { validateCsrCreate, validateCsrUpdate } from '../../../../lib/registry/certificates/certificate-signing-requests/validation';
import { specAsWritten, specFromVersion, specToVersion } from '../../../../lib/authz/api/access-review';
import { decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../../lib/scheme/protobuf';
import { ApiObject } from '../../../../lib/scheme/types';

const LEGACY = 'orch.io/legacy-unknown';
const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const node = requestField(makeCsrPem({ commonName: 'system:node:n1', organizations: ['system:nodes'], keyType: 'ec' }));
const plain = requestField(makeCsrPem({ commonName: 'someone', keyType: 'ec' }));
const T0 = '2024-01-01T00:00:00Z';

describe('certificates/v1beta1 CertificateSigningRequest defaults', () => {
  it('takes the signer from the request: a node client request is kube-apiserver-client-kubelet, anything else legacy-unknown', () => {
    expect(defaultSignerName({ request: node, usages: CLIENT_USAGES }, 'orch.io')).to.equal('orch.io/kube-apiserver-client-kubelet');
    expect(defaultSignerName({ request: node, usages: ['digital signature', 'client auth'] }, 'orch.io')).to.equal('orch.io/kube-apiserver-client-kubelet');
    expect(defaultSignerName({ request: node, usages: ['client auth'] }, 'orch.io')).to.equal(LEGACY);
    expect(defaultSignerName({ request: plain, usages: CLIENT_USAGES }, 'orch.io')).to.equal(LEGACY);
    expect(defaultSignerName({ request: requestField('garbage'), usages: CLIENT_USAGES }, 'k8s.io')).to.equal('k8s.io/legacy-unknown');
    expect(defaultSignerName({}, 'orch.io')).to.equal(LEGACY);
  });

  it('defaults absent usages (not an empty list) before the signer, in Go\'s field order, and keeps what is given', () => {
    const obj: ApiObject = { spec: { usages: null, request: plain } };
    defaultSpecV1beta1(obj, 'orch.io');
    expect(obj.spec).to.deep.equal({ request: plain, signerName: LEGACY, usages: ['digital signature', 'key encipherment'] });
    expect(Object.keys(obj.spec as object)).to.deep.equal(['request', 'signerName', 'usages']);
    const given: ApiObject = { spec: { request: plain, signerName: 'example.com/x', usages: [], expirationSeconds: 600 } };
    defaultSpecV1beta1(given, 'orch.io');
    expect(given.spec).to.deep.equal({ request: plain, signerName: 'example.com/x', expirationSeconds: 600, usages: [] });
    const none: ApiObject = {};
    defaultSpecV1beta1(none, 'orch.io');
    expect(none.spec).to.deep.equal({ signerName: LEGACY, usages: ['digital signature', 'key encipherment'] });
  });
});

describe('certificates/v1beta1 CertificateSigningRequest validation', () => {
  const csr = (spec: object, status: object = {}): ApiObject => ({ metadata: { name: 'x' }, spec: { request: plain, ...spec }, status });

  it('allows at v1beta1 what v1 refuses on create: the legacy signer, unknown and duplicate usages, duplicate and empty condition types', () => {
    const obj = csr({ signerName: LEGACY, usages: ['client auth', 'client auth', 'made up'] },
      { conditions: [{ type: 'Custom', status: 'True' }, { type: 'Custom', status: 'True' }, { type: '', status: 'True' }] });
    expect(validateCsrCreate(obj, LEGACY).map((e) => e.field)).to.have.members([
      'spec.signerName', 'spec.usages[1]', 'spec.usages[2]', 'status.conditions[1].type', 'status.conditions[2].type',
    ]);
    expect(validateCsrCreate(obj, LEGACY, true)).to.deep.equal([]);
  });

  it('still refuses at v1beta1 what every version refuses', () => {
    const errs = validateCsrCreate(csr({ signerName: 'no-slash', usages: [], expirationSeconds: 60 }), LEGACY, true);
    expect(errs.map((e) => e.field)).to.have.members(['spec.usages', 'spec.signerName', 'spec.expirationSeconds']);
    const both = csr({ signerName: LEGACY, usages: ['client auth'] }, { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] });
    expect(validateCsrCreate(both, LEGACY, true).map((e) => e.field)).to.deep.equal(['status.conditions[1].type']);
  });

  it('lets /status replace an issued certificate at v1beta1 only', () => {
    const old = csr({ signerName: 'example.com/x', usages: ['client auth'] }, { certificate: Buffer.from('old').toString('base64') });
    const next = csr({ signerName: 'example.com/x', usages: ['client auth'] }, { certificate: Buffer.from('new').toString('base64') });
    expect(validateCsrUpdate(next, old, LEGACY).map((e) => e.message)).to.include('Forbidden: updates may not modify existing certificate content');
    expect(validateCsrUpdate(next, old, LEGACY, true)).to.deep.equal([]);
  });
});

describe('authorization/v1beta1 access review specs', () => {
  it('reads v1beta1\'s group as v1\'s groups, and writes it back as group in Go\'s order', () => {
    const beta = { resourceAttributes: { verb: 'get' }, user: 'u', group: ['g'], extra: { k: ['v'] }, uid: '1' };
    const v1 = specFromVersion(beta, 'v1beta1');
    expect(v1).to.deep.equal({ resourceAttributes: { verb: 'get' }, user: 'u', groups: ['g'], extra: { k: ['v'] }, uid: '1' });
    const back = specToVersion(specAsWritten(v1), 'v1beta1');
    expect(back).to.deep.equal(beta);
    expect(Object.keys(back)).to.deep.equal(['resourceAttributes', 'user', 'group', 'extra', 'uid']);
    expect(specFromVersion({ user: 'u', groups: ['g'] }, 'v1')).to.deep.equal({ user: 'u', groups: ['g'] });
    expect(specToVersion({ user: 'u', groups: ['g'] }, 'v1')).to.deep.equal({ user: 'u', groups: ['g'] });
  });
});

describe('v1beta1 access-control protobuf', () => {
  const metadata = { name: 'x', uid: '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11', resourceVersion: '7', creationTimestamp: T0 };

  it('round trips a CertificateSigningRequest with every field', () => {
    const obj: ApiObject = {
      apiVersion: 'certificates.k8s.io/v1beta1', kind: 'CertificateSigningRequest', metadata,
      spec: {
        request: plain, signerName: 'kubernetes.io/legacy-unknown', expirationSeconds: 3600, usages: ['digital signature', 'key encipherment'],
        username: 'u', uid: '1', groups: ['g'], extra: { k: ['v'] },
      },
      status: {
        conditions: [{ type: 'Approved', status: 'True', reason: 'R', message: 'm', lastUpdateTime: T0, lastTransitionTime: T0 }],
        certificate: Buffer.from('cert').toString('base64'),
      },
    };
    expect(hasProtobuf('certificates.orch.io/v1beta1', 'CertificateSigningRequestList')).to.equal(true);
    expect(decodeProtobuf(encodeProtobuf(obj))).to.deep.equal(obj);
  });

  it('round trips the RBAC kinds, TokenReview and a SubjectAccessReview with group', () => {
    const objs: ApiObject[] = [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1beta1', kind: 'ClusterRole', metadata,
        rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1beta1', kind: 'RoleBinding', metadata,
        subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }, { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'u' }],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      },
      {
        apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', metadata: { creationTimestamp: T0 },
        spec: { token: 't', audiences: ['a'] },
        status: { authenticated: true, user: { username: 'u', uid: '1', groups: ['g'], extra: { k: ['v'] } }, audiences: ['a'] },
      },
      {
        apiVersion: 'authorization.k8s.io/v1beta1', kind: 'SubjectAccessReview', metadata: { creationTimestamp: T0 },
        spec: {
          resourceAttributes: { namespace: 'n', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'd' },
          user: 'u', group: ['g1', 'g2'], extra: { k: ['v'] }, uid: '1',
        },
        status: { allowed: false, denied: true, reason: 'no', evaluationError: 'e' },
      },
    ];
    for (const obj of objs) expect(decodeProtobuf(encodeProtobuf(obj)), obj.kind as string).to.deep.equal(obj);
  });
});

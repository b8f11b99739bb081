/** Request info from method, path and query, as kube-apiserver derives it. */
import { expect } from 'chai';
import { parseRequestInfo } from '../../../lib/api/request-info';

describe('request info', () => {
  it('resource requests: verbs, namespaces, names and subresources', () => {
    expect(parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps/a', '')).to.include({
      isResourceRequest: true, verb: 'get', group: '', version: 'v1', namespace: 'ns', resource: 'configmaps', name: 'a',
    });
    expect(parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps', 'limit=5')).to.include({ verb: 'list', namespace: 'ns' });
    expect(parseRequestInfo('GET', '/api/v1/configmaps', 'watch=true&x=1')).to.include({ verb: 'watch', namespace: undefined });
    expect(parseRequestInfo('GET', '/api/v1/configmaps', 'watch=false')).to.include({ verb: 'list' });
    expect(parseRequestInfo('GET', '/api/v1/configmaps', 'labelSelector=watch')).to.include({ verb: 'list' });
    expect(parseRequestInfo('GET', '/api/v1/namespaces/ns', '')).to.include({ verb: 'get', resource: 'namespaces', name: 'ns', namespace: undefined });
    expect(parseRequestInfo('PUT', '/api/v1/namespaces/ns/finalize', '')).to.include({ verb: 'update', resource: 'namespaces', name: 'ns', subresource: 'finalize' });
    expect(parseRequestInfo('PATCH', '/apis/storage.k8s.io/v1/storageclasses/fast/', '')).to.include({ verb: 'patch', group: 'storage.k8s.io', resource: 'storageclasses', name: 'fast' });
    expect(parseRequestInfo('DELETE', '/api/v1/namespaces/ns/pods', '')).to.include({ verb: 'deletecollection' });
    expect(parseRequestInfo('POST', '/api/v1/namespaces/ns/pods', '')).to.include({ verb: 'create' });
    expect(parseRequestInfo('GET', '/api/v1/namespaces/ns/pods/p/status', '')).to.include({ verb: 'get', name: 'p', subresource: 'status' });
  });

  it('a list or watch names one object through a metadata.name field selector, as kube-apiserver takes it for authorization', () => {
    const q = (fs: string, extra = '') => `fieldSelector=${encodeURIComponent(fs)}${extra}`;
    expect(parseRequestInfo('GET', '/api/v1/namespaces/kube-system/configmaps', q('metadata.name=extension-apiserver-authentication')))
      .to.include({ verb: 'list', listName: 'extension-apiserver-authentication' });
    expect(parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps', q('metadata.name==a,metadata.namespace=ns', '&watch=1'))).to.include({ verb: 'watch', listName: 'a' });
    // Only an exact match of a valid path segment name; not for a get or a deletecollection.
    for (const fs of ['metadata.name!=a', 'metadata.namespace=a', 'metadata.name=..', 'metadata.name=a/b', 'metadata.name=a%2Fb', 'metadata.name=', 'metadata.name']) {
      expect(parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps', q(fs)).listName, fs).to.equal(undefined);
    }
    expect(parseRequestInfo('DELETE', '/api/v1/namespaces/ns/configmaps', q('metadata.name=a')).listName).to.equal(undefined);
    const get = parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps/b', q('metadata.name=a'));
    expect([get.verb, get.name, get.listName]).to.deep.equal(['get', 'b', undefined]);
  });

  it('non-resource paths and bad segments', () => {
    expect(parseRequestInfo('GET', '/', '')).to.include({ isResourceRequest: false, verb: 'get' });
    expect(parseRequestInfo('GET', '/api/v1', '')).to.include({ isResourceRequest: false, apiPrefix: 'api' });
    expect(parseRequestInfo('GET', '/healthz/etcd', '')).to.include({ isResourceRequest: false });
    expect(() => parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps/a/b/c', '')).to.throw();
    expect(() => parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps/..', '')).to.throw(/may not be/);
    expect(() => parseRequestInfo('GET', '/api/v1/configmaps', 'watch=maybe')).to.throw();
  });
});

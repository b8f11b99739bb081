import { expect } from 'chai';
import { cleanDryRun, cleanScope, reportedVerb } from '../../../../lib/api/metrics/request-metrics';
import { compressUsername } from '../../../../lib/metrics/auth-metrics';
import { parseRequestInfo } from '../../../../lib/api/request-info';

/** The verb and scope labels of a request, as the request metrics report them. */
function labels(method: string, url: string, contentType = ''): { verb: string; scope: string } {
  const [path, query = ''] = url.split('?');
  const info = parseRequestInfo(method, path, query);
  const scope = cleanScope(info);
  const watch = method === 'GET' && /(^|&)watch=(?!0|false)/i.test(query);
  return { verb: reportedVerb(method, scope, info, watch, contentType), scope };
}

describe('request metric labels (Kubernetes CleanVerb / CleanScope)', () => {
  it('reports verbs and scopes as kube-apiserver', () => {
    expect(labels('GET', '/api/v1/namespaces/a/configmaps/x')).to.deep.equal({ verb: 'GET', scope: 'resource' });
    expect(labels('GET', '/api/v1/namespaces/a/configmaps')).to.deep.equal({ verb: 'LIST', scope: 'namespace' });
    expect(labels('GET', '/api/v1/configmaps')).to.deep.equal({ verb: 'LIST', scope: 'cluster' });
    expect(labels('GET', '/api/v1/namespaces/a/configmaps?watch=true')).to.deep.equal({ verb: 'WATCH', scope: 'namespace' });
    expect(labels('GET', '/api/v1/namespaces/a/configmaps?watch=false')).to.deep.equal({ verb: 'LIST', scope: 'namespace' });
    expect(labels('POST', '/api/v1/namespaces/a/configmaps')).to.deep.equal({ verb: 'POST', scope: 'resource' });
    expect(labels('PUT', '/api/v1/namespaces/a/configmaps/x')).to.deep.equal({ verb: 'PUT', scope: 'resource' });
    expect(labels('PATCH', '/api/v1/namespaces/a/configmaps/x', 'application/merge-patch+json').verb).to.equal('PATCH');
    expect(labels('PATCH', '/api/v1/namespaces/a/configmaps/x', 'application/apply-patch+yaml').verb).to.equal('APPLY');
    // As Kubernetes: a delete of a collection reports the method, DELETE, at its scope.
    expect(labels('DELETE', '/api/v1/namespaces/a/configmaps')).to.deep.equal({ verb: 'DELETE', scope: 'namespace' });
    expect(labels('GET', '/api/v1/namespaces/a/pods/p/log').verb).to.equal('CONNECT');
    expect(labels('GET', '/api/v1/namespaces/n')).to.deep.equal({ verb: 'GET', scope: 'resource' });
    expect(labels('GET', '/healthz')).to.deep.equal({ verb: 'GET', scope: '' });
    expect(labels('HEAD', '/healthz').verb).to.equal('GET');
    expect(labels('OPTIONS', '/healthz').verb).to.equal('other');
  });

  it('dry_run: empty, the sorted distinct values, or invalid', () => {
    expect(cleanDryRun('')).to.equal('');
    expect(cleanDryRun('dryRun=All')).to.equal('All');
    expect(cleanDryRun('dryRun=All&dryRun=All')).to.equal('All');
    expect(cleanDryRun('dryRun=Some')).to.equal('invalid');
    expect(cleanDryRun('dryRun=')).to.equal('invalid');
  });

  it('never puts a user name in a label beyond the few Kubernetes keeps', () => {
    expect(compressUsername('admin')).to.equal('admin');
    expect(compressUsername('kubelet')).to.equal('kubelet');
    expect(compressUsername('system:serviceaccount:kube-system:default')).to.equal('system:serviceaccount:kube-system:default');
    expect(compressUsername('jane@example.com')).to.equal('email_id');
    expect(compressUsername('system:serviceaccount:team:builder')).to.equal('other');
    expect(compressUsername('kubernetes-admin')).to.equal('other');
  });
});

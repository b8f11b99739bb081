/**
 * kubectl (1.32) with networking.k8s.io/v1: api-resources names ingressclasses, ingresses (`ing`)
 * and networkpolicies (`netpol`); `create ingress --rule` writes an Ingress (Exact path, service
 * port number) that `get ing` prints as NAME CLASS HOSTS ADDRESS PORTS AGE; an IngressClass
 * marked default is given by the DefaultIngressClass plugin to an Ingress created without a
 * class; a status patch fills ADDRESS; a bad rule is refused with Kubernetes' message.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl with Ingresses and IngressClasses', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-ing', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;

  it('api-resources lists the networking.k8s.io/v1 kinds with their short names', async () => {
    const table = parseTable((await ok(['api-resources', '--api-group=networking.k8s.io'])).stdout);
    expect(table.rows.map((r) => [r.NAME, r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND])).to.deep.equal([
      ['ingressclasses', '', 'networking.k8s.io/v1', 'false', 'IngressClass'],
      ['ingresses', 'ing', 'networking.k8s.io/v1', 'true', 'Ingress'],
      ['networkpolicies', 'netpol', 'networking.k8s.io/v1', 'true', 'NetworkPolicy'],
    ]);
  });

  it('create ingress --rule, get ing, patch the status, default class, refuse a bad rule', async () => {
    expect((await ok(['create', 'ingress', 'simple', '--rule=foo.com/bar=svc1:8080'])).stdout).to.contain('ingress.networking.k8s.io/simple created');
    const created = JSON.parse((await ok(['get', 'ingress', 'simple', '-o', 'json'])).stdout);
    expect(created.spec.rules).to.deep.equal([{ host: 'foo.com', http: { paths: [{ path: '/bar', pathType: 'Exact', backend: { service: { name: 'svc1', port: { number: 8080 } } } }] } }]);
    expect(created.spec.ingressClassName).to.equal(undefined);

    await ok(['patch', 'ing', 'simple', '--subresource=status', '--type=merge', '-p', '{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.7"}]}}}']);
    let table = parseTable((await ok(['get', 'ing'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    expect(table.rows.find((r) => r.NAME === 'simple')).to.deep.include({ CLASS: '<none>', HOSTS: 'foo.com', ADDRESS: '192.0.2.7', PORTS: '80' });

    await ok(['create', '-f', e2e.manifest('class.yaml', {
      apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass',
      metadata: { name: 'house', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
      spec: { controller: 'example.com/ingress-controller' },
    })]);
    const classes = parseTable((await ok(['get', 'ingressclass'])).stdout);
    expect(classes.columns).to.deep.equal(['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE']);
    expect(classes.rows[0]).to.deep.include({ NAME: 'house', CONTROLLER: 'example.com/ingress-controller', PARAMETERS: '<none>' });

    await ok(['create', 'ingress', 'tls', '--rule=secure.example.com/*=svc2:https,tls=secure-cert']);
    table = parseTable((await ok(['get', 'ing', 'tls'])).stdout);
    expect(table.rows[0]).to.deep.include({ CLASS: 'house', HOSTS: 'secure.example.com', PORTS: '80, 443' });

    const refused = await fails(['create', 'ingress', 'bad', '--rule=10.0.0.1/=svc1:80']);
    expect(refused.stderr).to.contain('spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address');
  });
});

/**
 * kubectl (1.32) with NetworkPolicies: `create -f` a policy, the server's defaults visible in
 * `get -o json` (TCP ports, policyTypes), `get netpol` printing NAME POD-SELECTOR AGE, and an
 * invalid policy refused with Kubernetes' message.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';
import { parseTable } from '../helpers/kubectl';

describe('kubectl with NetworkPolicies', function () {
  this.timeout(90_000);
  const e2e = useKubectlServer('kubectl-netpol', ['--flavor=kubernetes']);
  const { ok, fails } = e2e;
  const policy = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec });

  it('create -f, get netpol, defaults, refusal', async () => {
    expect((await ok(['create', '-f', e2e.manifest('db.yaml', policy('db', {
      podSelector: { matchLabels: { app: 'db' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'api' } } }], ports: [{ port: 5432 }] }],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }],
    }))])).stdout).to.contain('networkpolicy.networking.k8s.io/db created');
    await ok(['create', '-f', e2e.manifest('deny.yaml', policy('deny-all', {}))]);

    const db = JSON.parse((await ok(['get', 'netpol', 'db', '-o', 'json'])).stdout);
    expect(db.spec.policyTypes).to.deep.equal(['Ingress', 'Egress']);
    expect(db.spec.ingress[0].ports).to.deep.equal([{ protocol: 'TCP', port: 5432 }]);

    const table = parseTable((await ok(['get', 'netpol'])).stdout);
    expect(table.columns).to.deep.equal(['NAME', 'POD-SELECTOR', 'AGE']);
    expect(table.rows.map((r) => [r.NAME, r['POD-SELECTOR']])).to.deep.equal([['db', 'app=db'], ['deny-all', '<none>']]);

    const refused = await fails(['create', '-f', e2e.manifest('bad.yaml', policy('bad', { ingress: [{ ports: [{ port: 'http', endPort: 90 }] }] }))]);
    expect(refused.stderr).to.contain('spec.ingress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` is non-numeric');
  });
});

/**
 * The real kubectl (1.32) reading events through the server process: `describe` (which lists
 * the object's events by `involvedObject.*` field selectors, and failed outright while events
 * were not served), `get events` with its wide columns, and `kubectl events --for`.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';

const NS = 'e2e-events';

describe('kubectl describe and events against the server process', function () {
  this.timeout(90_000);
  const { ok, manifest } = useKubectlServer('kubectl-events');

  before(async () => {
    await ok(['create', 'namespace', NS]);
    await ok(['create', 'configmap', 'watched', '-n', NS, '--from-literal=k=v']);
  });

  it('describe of an object without events prints it and `Events: <none>`', async () => {
    const out = (await ok(['describe', 'configmap', 'watched', '-n', NS])).stdout;
    expect(out).to.match(/^Name:\s+watched$/m);
    expect(out).to.match(/^Events:\s+<none>$/m);
  });

  it('an event about the object shows in describe, get events (-o wide) and kubectl events --for', async () => {
    const uid = (await ok(['get', 'configmap', 'watched', '-n', NS, '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const seen = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await ok(['create', '-f', manifest('event.yaml', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'watched.1', namespace: NS },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'watched', namespace: NS, uid },
      reason: 'Reloaded', message: 'reloaded by the e2e test', type: 'Warning',
      source: { component: 'e2e', host: 'box' }, firstTimestamp: seen, lastTimestamp: seen, count: 3,
    })]);

    const described = (await ok(['describe', 'configmap', 'watched', '-n', NS])).stdout;
    expect(described).to.match(/^\s+Warning\s+Reloaded\s+\S+ \(x3 over \S+\)\s+e2e\s+reloaded by the e2e test$/m);

    const wide = (await ok(['get', 'events', '-n', NS, '-o', 'wide'])).stdout.trim().split('\n');
    expect(wide[0].split(/\s{2,}/)).to.deep.equal(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
    expect(wide[1]).to.match(/\sWarning\s+Reloaded\s+configmap\/watched\s+e2e, box\s+reloaded by the e2e test\s+\S+\s+3\s+watched\.1$/);

    const forIt = (await ok(['events', '-n', NS, '--for', 'configmap/watched'])).stdout;
    expect(forIt).to.match(/Warning\s+Reloaded\s+ConfigMap\/watched\s+reloaded by the e2e test/);
    expect((await ok(['events', '-n', NS, '--types=Normal'])).stdout).to.not.include('Reloaded');
  });
});

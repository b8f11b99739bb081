/**
 * kubectl (1.32) with events.k8s.io/v1 (flavor kubernetes): api-resources lists `events` in the
 * events.k8s.io group; an event created at events.k8s.io/v1 is printed by
 * `kubectl get events.v1.events.k8s.io` (kubectl's event columns, -o wide too), read back with its
 * events/v1 fields, and shown by `kubectl events --for` and `describe` (which read core/v1: the
 * same object); a core/v1 event reads at events.k8s.io/v1 with `note` and `regarding`.
 */
import { expect } from 'chai';
import { useKubectlServer } from '../helpers/e2e-server';

const NS = 'e2e-events-v1';

describe('kubectl with events.k8s.io/v1 Events', function () {
  this.timeout(90_000);
  const { ok, fails, manifest } = useKubectlServer('kubectl-events-v1', ['--flavor=kubernetes']);

  before(async () => {
    await ok(['create', 'namespace', NS]);
    await ok(['create', 'configmap', 'subject', '-n', NS, '--from-literal=k=v']);
  });

  it('api-resources lists events in events.k8s.io/v1', async () => {
    const out = (await ok(['api-resources', '--api-group=events.k8s.io', '--no-headers'])).stdout.trim().split(/\s+/);
    expect(out).to.deep.equal(['events', 'ev', 'events.k8s.io/v1', 'true', 'Event']);
  });

  it('an events/v1 event is printed in both groups and by kubectl events and describe', async () => {
    const uid = (await ok(['get', 'configmap', 'subject', '-n', NS, '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const eventTime = new Date(Date.now() - 30_000).toISOString().replace('Z', '000Z');
    const created = await ok(['create', '-f', manifest('event-v1.yaml', {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'subject.1', namespace: NS },
      eventTime, reportingController: 'example.com/e2e', reportingInstance: 'e2e-1', action: 'Reload', reason: 'Reloaded', type: 'Warning',
      note: 'reloaded through events.k8s.io', regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'subject', namespace: NS, uid },
    })]);
    expect(created.stdout).to.contain('event.events.k8s.io/subject.1 created');

    const wide = (await ok(['get', 'events.v1.events.k8s.io', '-n', NS, '-o', 'wide'])).stdout.trim().split('\n');
    expect(wide[0].split(/\s{2,}/)).to.deep.equal(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
    expect(wide[1]).to.match(/\sWarning\s+Reloaded\s+configmap\/subject\s+example\.com\/e2e, e2e-1\s+reloaded through events\.k8s\.io\s+\S+\s+1\s+subject\.1$/);

    expect((await ok(['get', 'events.v1.events.k8s.io', 'subject.1', '-n', NS, '-o', 'jsonpath={.note}|{.regarding.name}|{.reportingController}'])).stdout)
      .to.equal('reloaded through events.k8s.io|subject|example.com/e2e');
    expect((await ok(['get', 'events.v1.', 'subject.1', '-n', NS, '-o', 'jsonpath={.message}|{.involvedObject.name}|{.reportingComponent}'])).stdout)
      .to.equal('reloaded through events.k8s.io|subject|example.com/e2e');

    expect((await ok(['events', '-n', NS, '--for', 'configmap/subject'])).stdout).to.match(/Warning\s+Reloaded\s+ConfigMap\/subject\s+reloaded through events\.k8s\.io/);
    expect((await ok(['describe', 'configmap', 'subject', '-n', NS])).stdout).to.match(/Warning\s+Reloaded\s+\S+\s+example\.com\/e2e\s+reloaded through events\.k8s\.io/);
  });

  it('a core/v1 event reads at events.k8s.io/v1; events/v1 refuses what its validation refuses', async () => {
    await ok(['create', '-f', manifest('event-core.yaml', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'subject.2', namespace: NS },
      involvedObject: { kind: 'ConfigMap', name: 'subject', namespace: NS }, reason: 'Old', message: 'old style', source: { component: 'legacy' }, count: 2,
    })]);
    expect((await ok(['get', 'events.v1.events.k8s.io', 'subject.2', '-n', NS, '-o', 'jsonpath={.note}|{.deprecatedSource.component}|{.deprecatedCount}'])).stdout)
      .to.equal('old style|legacy|2');
    const refused = await fails(['create', '-f', manifest('bad.yaml', {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'bad', namespace: NS },
      eventTime: new Date().toISOString().replace('Z', '000Z'), reportingController: 'example.com/e2e', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Info',
      regarding: { kind: 'ConfigMap', name: 'subject', namespace: NS },
    })]);
    expect(refused.stderr).to.contain('type: Invalid value: "": has invalid value: Info');
  });
});

/**
 * The `log` audit backend as --audit-log-* configure it: `json` writes one Event per line,
 * `legacy` one text line per event exactly as kube-apiserver's audit.EventString prints it
 * (plugin/pkg/audit/log/backend.go), the same fields, quoting and placeholders.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAudit } from '../../../lib/audit/build';
import { formatEvent } from '../../../lib/audit/log-backend';
import type { AuditEvent } from '../../../lib/audit/types';
import { parseFlags } from '../../../lib/server/flags';
import { flavors } from '../../../lib/naming';

const full: AuditEvent = {
  kind: 'Event', apiVersion: 'audit.orch.io/v1', level: 'Metadata', auditID: '5d3a7d6e-0c4f-4f7e-9a53-2b1f0f3c9e01',
  stage: 'ResponseComplete', requestURI: '/api/v1/namespaces/team-a/configmaps?fieldManager=kubectl', verb: 'create',
  user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
  impersonatedUser: { username: 'bob', groups: ['team'] },
  sourceIPs: ['10.0.0.7', '127.0.0.1'], userAgent: 'kubectl/v1.30.0 (linux/amd64) "quoted"',
  objectRef: { resource: 'configmaps', namespace: 'team-a', name: 'c1', apiVersion: 'v1' },
  responseStatus: { metadata: {}, code: 201 },
  requestReceivedTimestamp: '2024-05-01T10:00:00.123400Z', stageTimestamp: '2024-05-01T10:00:00.200000Z',
};

/** A failed authentication's event: no user, no objectRef, no status yet. */
const bare: AuditEvent = {
  kind: 'Event', apiVersion: 'audit.orch.io/v1', level: 'Metadata', auditID: 'id-2', stage: 'RequestReceived',
  requestURI: '/healthz', verb: 'get', user: {} as AuditEvent['user'],
  requestReceivedTimestamp: '2024-05-01T10:00:01.000000Z', stageTimestamp: '2024-05-01T10:00:01.000000Z',
};

describe('audit log backend', () => {
  describe('--audit-log-format=legacy: kube-apiserver\'s one-line text', () => {
    it('every field of an impersonated request, quoted as Go\'s %q', () => {
      expect(formatEvent(full, 'legacy')).to.equal('2024-05-01T10:00:00.1234Z AUDIT: id="5d3a7d6e-0c4f-4f7e-9a53-2b1f0f3c9e01" '
        + 'stage="ResponseComplete" ip="10.0.0.7" method="create" user="alice" groups="\\"devs\\",\\"system:authenticated\\"" '
        + 'as="bob" asgroups="\\"team\\"" user-agent="kubectl/v1.30.0 (linux/amd64) \\"quoted\\"" namespace="team-a" '
        + 'uri="/api/v1/namespaces/team-a/configmaps?fieldManager=kubectl" response="201"\n');
    });

    it('the placeholders for what an event lacks; a whole second has no fraction (RFC3339Nano)', () => {
      expect(formatEvent(bare, 'legacy')).to.equal('2024-05-01T10:00:01Z AUDIT: id="id-2" stage="RequestReceived" ip="<unknown>" '
        + 'method="get" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" '
        + 'uri="/healthz" response="<deferred>"\n');
    });

    it('a user without groups, impersonating one whose groups are looked up, cluster-scoped', () => {
      const ev: AuditEvent = { ...full, user: { username: 'carol' }, impersonatedUser: { username: 'dave' }, objectRef: { resource: 'nodes', name: 'n1' } };
      const line = formatEvent(ev, 'legacy');
      expect(line).to.contain(' user="carol" groups="<none>" as="dave" asgroups="<lookup>" ');
      expect(line).to.contain(' namespace="<none>" ');
    });
  });

  describe('the flags through buildAudit', () => {
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'audit-log-backend-')); });
    afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

    const written = async (flags: string[], events: AuditEvent[]): Promise<string> => {
      const file = path.join(dir, 'audit.log');
      const config = parseFlags([`--audit-log-path=${file}`, ...flags]);
      const quiet = { warn: () => undefined, info: () => undefined };
      const audit = await buildAudit({ config, naming: flavors.orch, counters: { event: () => undefined, level: () => undefined, error: () => undefined }, log: quiet });
      expect(audit.backends.map((b) => b.name)).to.deep.equal(['log']);
      for (const e of events) audit.backends[0].processEvents([e]);
      await audit.shutdown();
      return readFileSync(file, 'utf8');
    };

    it('--audit-log-format=legacy writes one text line per event', async () => {
      const text = await written(['--audit-log-format=legacy'], [full, bare]);
      expect(text).to.equal(formatEvent(full, 'legacy') + formatEvent(bare, 'legacy'));
      expect(text.split('\n')).to.have.length(3);
    });

    it('json, the default, writes one Event per line', async () => {
      const text = await written([], [full, bare]);
      expect(text.split('\n').filter(Boolean).map((l) => JSON.parse(l))).to.deep.equal([full, bare]);
    });
  });
});

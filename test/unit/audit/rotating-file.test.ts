/**
 * Rotation of the audit log as --audit-log-maxsize, --audit-log-compress and --audit-log-maxage
 * configure it (kube-apiserver's lumberjack): a backup `audit-<UTC time>.log` is gzipped to
 * `.log.gz` when compress is on, and backups whose name carries a time older than maxage days
 * are removed at the next rotation, whatever their file times say.
 */
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAudit } from '../../../lib/audit/build';
import type { AuditEvent } from '../../../lib/audit/types';
import { parseFlags } from '../../../lib/server/flags';
import { flavors } from '../../../lib/naming';

const BACKUP = /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/;

/** An event of about 400 KB: three of them pass the 1 MB of --audit-log-maxsize=1. */
const big = (id: string): AuditEvent => ({
  kind: 'Event', apiVersion: 'audit.orch.io/v1', level: 'Metadata', auditID: id, stage: 'ResponseComplete',
  requestURI: '/api/v1/configmaps', verb: 'list', user: { username: 'alice' },
  requestReceivedTimestamp: '2024-05-01T10:00:00.000000Z', stageTimestamp: '2024-05-01T10:00:00.000000Z',
  annotations: { padding: 'x'.repeat(400_000) },
});

/** lumberjack's name for a backup taken at `d` (UTC). */
const backupName = (d: Date, ext = '.log') => `audit-${d.toISOString().replace(/:/g, '-').replace(/Z$/, '')}${ext}`;
const DAY = 24 * 3600 * 1000;

describe('audit log rotation', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'audit-rotation-')); });
  afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

  /** Writes `events` one by one through the log backend the flags build, then flushes it. */
  const writeEvents = async (flags: string[], events: AuditEvent[]) => {
    const config = parseFlags([`--audit-log-path=${path.join(dir, 'audit.log')}`, '--audit-log-maxsize=1', ...flags]);
    const quiet = { warn: () => undefined, info: () => undefined };
    const errors: number[] = [];
    const audit = await buildAudit({
      config, naming: flavors.orch, log: quiet,
      counters: { event: () => undefined, level: () => undefined, error: (_p, n) => { errors.push(n); } },
    });
    for (const e of events) {
      audit.backends[0].processEvents([e]);
      // One write per event, as requests arrive: each may rotate.
      await new Promise((r) => setTimeout(r, 20));
    }
    await audit.shutdown();
    expect(errors).to.deep.equal([]);
  };
  const idsIn = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l).auditID as string);

  it('--audit-log-compress gzips the rotated backup; it reads back as the events, one JSON per line', async () => {
    await writeEvents(['--audit-log-compress=true'], [big('e1'), big('e2'), big('e3')]);
    const files = readdirSync(dir);
    expect(files).to.have.length(2).and.include('audit.log');
    const backup = files.find((f) => f !== 'audit.log')!;
    expect(backup).to.match(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/);
    const gz = readFileSync(path.join(dir, backup));
    expect(gz.subarray(0, 2).toString('hex')).to.equal('1f8b');
    expect(gz.length).to.be.below(100_000);
    expect(idsIn(gunzipSync(gz).toString('utf8'))).to.deep.equal(['e1', 'e2']);
    expect(idsIn(readFileSync(path.join(dir, 'audit.log'), 'utf8'))).to.deep.equal(['e3']);
  });

  it('without --audit-log-compress the backup stays plain text', async () => {
    await writeEvents([], [big('e1'), big('e2'), big('e3')]);
    const backups = readdirSync(dir).filter((f) => f !== 'audit.log');
    expect(backups).to.have.length(1);
    expect(backups[0]).to.match(BACKUP);
    expect(idsIn(readFileSync(path.join(dir, backups[0]), 'utf8'))).to.deep.equal(['e1', 'e2']);
  });

  it('--audit-log-maxage removes backups whose name is older than N days at the next rotation', async () => {
    const now = Date.now();
    const old = backupName(new Date(now - 10 * DAY));
    const oldGz = backupName(new Date(now - 4 * DAY), '.log.gz');
    const recent = backupName(new Date(now - 2 * DAY));
    for (const f of [old, oldGz, recent, 'audit-notes.log', 'other-2020-01-01T00-00-00.000.log']) writeFileSync(path.join(dir, f), 'kept?\n');
    // Age is the time in the name, not the file's: an old file time does not condemn a recent backup.
    const longAgo = new Date(now - 100 * DAY);
    utimesSync(path.join(dir, recent), longAgo, longAgo);
    await writeEvents(['--audit-log-maxage=3'], [big('e1'), big('e2'), big('e3')]);
    const files = readdirSync(dir);
    expect(files).to.not.include(old);
    expect(files).to.not.include(oldGz);
    expect(files).to.include.members([recent, 'audit-notes.log', 'other-2020-01-01T00-00-00.000.log', 'audit.log']);
    const fresh = files.filter((f) => BACKUP.test(f) && f !== recent);
    expect(fresh).to.have.length(1);
    expect(idsIn(readFileSync(path.join(dir, fresh[0]), 'utf8'))).to.deep.equal(['e1', 'e2']);
  });

  it('--audit-log-maxage=0 keeps backups of any age', async () => {
    const old = backupName(new Date(Date.now() - 1000 * DAY));
    writeFileSync(path.join(dir, old), 'old\n');
    await writeEvents(['--audit-log-maxage=0'], [big('e1'), big('e2'), big('e3')]);
    expect(existsSync(path.join(dir, old))).to.equal(true);
    expect(readdirSync(dir).filter((f) => BACKUP.test(f))).to.have.length(2);
  });
});

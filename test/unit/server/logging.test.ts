/**
 * The log formats and verbosity (--logging-format, -v, --log-level) as an operator reads them:
 * klog's text header and key=value pairs, or one JSON object per line; request lines only from
 * -v=3, as kube-apiserver's httplog.
 */
import { expect } from 'chai';
import { configureLogger, logger, v } from '../../../lib/logger';
import { parseCommandLine } from '../../../lib/server/flags';
import { captureLog } from '../../helpers/log-capture';

describe('logging: --logging-format, -v and --log-level', () => {
  const saved = { level: logger.level, format: logger.format };
  afterEach(() => { logger.level = saved.level; logger.format = saved.format; configureLogger({ level: saved.level, verbosity: 0, format: 'json' }); });

  it('text is klog\'s header (severity, date, time to the microsecond, pid) then the quoted message and key=value pairs', () => {
    configureLogger({ level: 'info', verbosity: 0, format: 'text' });
    const c = captureLog();
    try {
      logger.warn('watch ended', { resource: 'pods', count: 3, ok: false, labels: { a: 'b' }, gone: undefined });
      logger.error('etcd unreachable', { err: new Error('connection refused') });
    } finally { c.stop(); }
    expect(c.lines[0]).to.match(/^W\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ orch-apiserver\] "watch ended" resource="pods" count=3 ok=false labels=\{"a":"b"\}$/);
    expect(c.lines[1]).to.match(/^E\d{4} .*\] "etcd unreachable" err="connection refused"$/);
  });

  it('json is one object per line with level, message, fields and timestamp', () => {
    configureLogger({ level: 'info', verbosity: 0, format: 'json' });
    const c = captureLog();
    try { logger.info('started', { port: 6443 }); } finally { c.stop(); }
    const rec = JSON.parse(c.lines[0]);
    expect(rec).to.include({ level: 'info', message: 'started', port: 6443 });
    expect(Date.parse(rec.timestamp)).to.be.a('number').and.not.NaN;
  });

  it('-v gates klog verbosities: V(3) request lines from -v=3; -v=4 raises info to debug; --log-level=debug shows every V; warn hides them', () => {
    configureLogger({ level: 'info', verbosity: 0, format: 'json' });
    expect([v(0), v(2), v(3)]).to.deep.equal([true, false, false]);
    expect(logger.isLevelEnabled('debug')).to.equal(false);
    configureLogger({ level: 'info', verbosity: 3, format: 'json' });
    expect([v(3), v(4), logger.isLevelEnabled('debug')]).to.deep.equal([true, false, false]);
    configureLogger({ level: 'info', verbosity: 4, format: 'json' });
    expect([v(4), logger.isLevelEnabled('debug')]).to.deep.equal([true, true]);
    configureLogger({ level: 'debug', verbosity: 0, format: 'json' });
    expect(v(10)).to.equal(true);
    configureLogger({ level: 'warn', verbosity: 10, format: 'json' });
    expect(v(3), 'V lines are info lines: a warn level hides them').to.equal(false);
  });

  it('the flags: --logging-format takes text or json (unset: decided by the terminal), -v 0 to 10, both honoured', () => {
    expect(parseCommandLine(['--logging-format=text', '-v', '3']).config).to.include({ loggingFormat: 'text', v: 3 });
    expect(parseCommandLine([]).config).to.include({ loggingFormat: '', v: 0 });
    expect(() => parseCommandLine(['--logging-format=xml'])).to.throw(/logging-format.*must be one of text, json/);
    expect(() => parseCommandLine(['-v', '11'])).to.throw(/-v|--v/);
  });
});

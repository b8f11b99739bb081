/**
 * The start-up phases line (-v=2): where a start's time went, one entry per phase in the order
 * they ran, the process's own start (Node's boot and module loading) first.
 */
import { expect } from 'chai';
import { configureLogger, logger } from '../../../lib/logger';
import { StartPhases } from '../../../lib/server/start-phases';
import { captureLog } from '../../helpers/log-capture';

describe('StartPhases', () => {
  const saved = { level: logger.level, format: logger.format };
  afterEach(() => { logger.level = saved.level; logger.format = saved.format; configureLogger({ level: saved.level, verbosity: 0, format: 'json' }); });

  const run = () => {
    const phases = new StartPhases();
    phases.mark('pki');
    phases.mark('namespaces');
    const c = captureLog();
    try { phases.log(); } finally { c.stop(); }
    return c.lines;
  };

  it('logs each phase in ms, in order after the process itself, and the total, at -v=2', () => {
    configureLogger({ level: 'info', verbosity: 2, format: 'json' });
    const [line, ...more] = run();
    expect(more).to.deep.equal([]);
    const rec = JSON.parse(line);
    expect(rec.message).to.equal('start-up phases');
    expect(Object.keys(rec.ms)).to.deep.equal(['process', 'pki', 'namespaces']);
    for (const ms of Object.values(rec.ms)) expect(ms).to.be.a('number').and.at.least(0);
    expect(rec.total).to.be.at.least(rec.ms.process);
  });

  it('stays quiet below -v=2', () => {
    configureLogger({ level: 'info', verbosity: 1, format: 'json' });
    expect(run()).to.deep.equal([]);
  });
});

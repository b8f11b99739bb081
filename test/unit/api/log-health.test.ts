/**
 * The `log` health check (lib/api/log-health.ts): kube-apiserver's rule of one flush a minute from
 * the first check on, and "logging blocked" once no flush has finished for two minutes. Driven by
 * mocha's real timers with short periods and a clock the test moves.
 */
import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import winston from 'winston';
import { LogHealthCheck, winstonDrained } from '../../../lib/api/log-health';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function outcome(c: LogHealthCheck): Promise<string> {
  return c.check().then(() => 'ok', (e: Error) => e.message);
}

describe('log health check', () => {
  let clock = 0;
  const checks: LogHealthCheck[] = [];
  const make = (drained: () => boolean) => {
    const c = new LogHealthCheck({ drained, flushEveryMs: 20, pollMs: 5, blockedAfterMs: 1_000, now: () => clock });
    checks.push(c);
    return c;
  };
  beforeEach(() => { clock = 1_000_000; });
  afterEach(() => { for (const c of checks.splice(0)) c.stop(); });

  it('passes from the first check while the log drains', async () => {
    const c = make(() => true);
    expect(await outcome(c)).to.equal('ok');
    // Time passes; the flushes keep up with it.
    for (let i = 0; i < 5; i++) {
      clock += 400;
      await sleep(30);
    }
    expect(await outcome(c)).to.equal('ok');
  });

  it('fails "logging blocked" once no flush finished within the limit, and passes again after one', async () => {
    let drained = true;
    const c = make(() => drained);
    expect(await outcome(c)).to.equal('ok');
    drained = false;
    clock += 999;
    await sleep(30);
    expect(await outcome(c), 'inside the limit').to.equal('ok');
    clock += 2;
    expect(await outcome(c)).to.equal('logging blocked');
    // The flush waiting on the blocked log finishes as soon as the log drains, not a minute later.
    drained = true;
    await sleep(30);
    expect(await outcome(c)).to.equal('ok');
  });

  it('counts from the first check: a log blocked before it does not fail it', async () => {
    const c = make(() => false);
    clock += 10_000;
    expect(await outcome(c)).to.equal('ok');
    clock += 1_001;
    expect(await outcome(c)).to.equal('logging blocked');
  });

  it('winstonDrained: false while a transport holds lines, true once they are written', async () => {
    const sink = new PassThrough({ highWaterMark: 1 });
    const logger = winston.createLogger({ transports: [new winston.transports.Stream({ stream: sink })] });
    const drained = winstonDrained(logger);
    expect(drained()).to.equal(true);
    for (let i = 0; i < 200; i++) logger.info(`line ${i}`);
    await sleep(10);
    expect(drained(), 'nobody reads the stream').to.equal(false);
    sink.resume();
    await sleep(50);
    expect(drained()).to.equal(true);
    logger.close();
  });
});

import { expect } from 'chai';
import { FlagError, parseFlags } from '../../../lib/server/flags';
import { batchConfigFrom } from '../../../lib/audit/batch-options';

/** The FlagError of a command line (fails the test when it parses). */
function flagError(args: string[]): FlagError {
  try {
    parseFlags(args);
  } catch (err) {
    expect(err).to.be.instanceOf(FlagError);
    return err as FlagError;
  }
  throw new Error(`${args.join(' ')} parsed`);
}

const WEBHOOK = '--audit-webhook-config-file=/etc/audit-webhook.kubeconfig';

describe('audit backend flags (--audit-webhook-*, --audit-log-batch-*)', () => {
  it('defaults as kube-apiserver: webhook batch 10000/400/30s throttled 10 qps burst 15, backoff 10s; log batch of 1 unthrottled', () => {
    const c = parseFlags([]);
    expect(c.auditWebhookMode).to.equal('batch');
    expect(c.auditWebhookInitialBackoffMs).to.equal(10_000);
    expect(c.auditWebhookVersion).to.equal('audit.k8s.io/v1');
    expect(batchConfigFrom(c, 'webhook')).to.deep.equal({
      bufferSize: 10000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttleEnable: true, throttleQPS: 10, throttleBurst: 15,
    });
    expect(batchConfigFrom(c, 'log')).to.deep.equal({
      bufferSize: 10000, maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: false, throttleQPS: 0, throttleBurst: 0,
    });
  });

  it('reads the values given', () => {
    const c = parseFlags([WEBHOOK, '--audit-webhook-batch-max-wait=1s', '--audit-webhook-batch-max-size=50',
      '--audit-webhook-batch-throttle-qps=0.5', '--audit-webhook-initial-backoff=250ms', '--audit-webhook-mode=blocking']);
    expect(c.auditWebhookMode).to.equal('blocking');
    expect(c.auditWebhookInitialBackoffMs).to.equal(250);
    expect(batchConfigFrom(c, 'webhook')).to.include({ maxBatchWaitMs: 1000, maxBatchSize: 50, throttleQPS: 0.5 });
  });

  it('an unknown mode stops the start with kube-apiserver\'s message', () => {
    const e = flagError([WEBHOOK, '--audit-webhook-mode=async']);
    expect(e.message).to.equal('invalid audit webhook mode async, allowed modes are "batch,blocking,blocking-strict"');
    expect(e.flag).to.equal('audit-webhook-mode');
  });

  it('batch values must be positive in batch mode, with kube-apiserver\'s messages', () => {
    expect(flagError([WEBHOOK, '--audit-webhook-batch-buffer-size=0']).message)
      .to.equal('invalid audit batch webhook buffer size 0, must be a positive number');
    expect(flagError([WEBHOOK, '--audit-webhook-batch-max-size=-1']).message)
      .to.equal('invalid audit batch webhook max batch size -1, must be a positive number');
    expect(flagError([WEBHOOK, '--audit-webhook-batch-throttle-qps=0']).message)
      .to.equal('invalid audit batch webhook throttle QPS 0, must be a positive number');
    expect(flagError([WEBHOOK, '--audit-webhook-batch-throttle-burst=0']).flag).to.equal('audit-webhook-batch-throttle-burst');
    expect(flagError(['--audit-log-path=/tmp/a.log', '--audit-log-mode=batch', '--audit-log-batch-max-size=0']).message)
      .to.equal('invalid audit batch log max batch size 0, must be a positive number');
  });

  it('unused values are not checked: without the backend, outside batch mode, throttle off', () => {
    expect(() => parseFlags(['--audit-webhook-batch-buffer-size=0'])).to.not.throw();
    expect(() => parseFlags([WEBHOOK, '--audit-webhook-mode=blocking', '--audit-webhook-batch-buffer-size=0'])).to.not.throw();
    expect(() => parseFlags([WEBHOOK, '--audit-webhook-batch-throttle-enable=false', '--audit-webhook-batch-throttle-qps=0'])).to.not.throw();
    // The log's defaults (qps 0) are fine in batch mode: its throttle is off.
    expect(() => parseFlags(['--audit-log-path=/tmp/a.log', '--audit-log-mode=batch'])).to.not.throw();
  });

  it('--audit-webhook-version: audit.k8s.io/v1 or the flavor\'s group; others stop the start', () => {
    expect(parseFlags([WEBHOOK, '--audit-webhook-version=audit.orch.io/v1']).auditWebhookVersion).to.equal('audit.orch.io/v1');
    const e = flagError([WEBHOOK, '--audit-webhook-version=audit.k8s.io/v1beta1']);
    expect(e.message).to.equal('invalid group version, allowed versions are ["audit.k8s.io/v1" "audit.orch.io/v1"]');
    expect(flagError([WEBHOOK, '--flavor=kubernetes', '--audit-webhook-version=audit.orch.io/v1']).message)
      .to.equal('invalid group version, allowed versions are ["audit.k8s.io/v1"]');
  });

  it('malformed numbers are refused by the flag itself', () => {
    expect(flagError([WEBHOOK, '--audit-webhook-batch-max-size=many']).flag).to.equal('audit-webhook-batch-max-size');
    expect(flagError([WEBHOOK, '--audit-webhook-batch-max-wait=5']).message).to.include('--audit-webhook-batch-max-wait');
  });
});

/**
 * ImagePolicyWebhook's configuration: kube's defaults, its -1 sentinel, and its range checks
 * worded as kube-apiserver words them (Go durations).
 */
import { expect } from 'chai';
import { parseImagePolicyConfig } from '../../../../lib/admission/imagepolicy/config';
import { formatGoDuration } from '../../../../lib/meta/go-duration';

const message = (c: unknown): string => {
  try {
    parseImagePolicyConfig(c);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the configuration to be refused');
};

describe('parseImagePolicyConfig', () => {
  it('takes kube defaults: 5 min allowed, 30 s denied, 500 ms backoff, fail closed', () => {
    expect(parseImagePolicyConfig({ imagePolicy: { kubeConfigFile: '/k' } })).to.deep.equal({
      kubeConfigFile: '/k', allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 500, defaultAllow: false,
    });
    expect(parseImagePolicyConfig({ imagePolicy: { kubeConfigFile: '/k', allowTTL: 0, denyTTL: 0, retryBackoff: 0 } }))
      .to.include({ allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 500 });
  });

  it('reads seconds for the TTLs and milliseconds for the backoff; -1 disables', () => {
    expect(parseImagePolicyConfig({ imagePolicy: { kubeConfigFile: '/k', allowTTL: 50, denyTTL: 1800, retryBackoff: 300_000, defaultAllow: true } }))
      .to.deep.equal({ kubeConfigFile: '/k', allowTtlMs: 50_000, denyTtlMs: 1_800_000, retryBackoffMs: 300_000, defaultAllow: true });
    expect(parseImagePolicyConfig({ imagePolicy: { kubeConfigFile: '/k', allowTTL: -1, denyTTL: -1, retryBackoff: -1 } }))
      .to.include({ allowTtlMs: 0, denyTtlMs: 0, retryBackoffMs: 0 });
  });

  it('refuses values out of kube\'s ranges with its message (the minimum itself included)', () => {
    expect(message({ imagePolicy: { kubeConfigFile: '/k', allowTTL: 1801 } })).to.equal('valid value is between 1s and 30m0s, got 30m1s');
    expect(message({ imagePolicy: { kubeConfigFile: '/k', allowTTL: 1 } })).to.equal('valid value is between 1s and 30m0s, got 1s');
    expect(message({ imagePolicy: { kubeConfigFile: '/k', denyTTL: -5 } })).to.equal('valid value is between 1s and 30m0s, got -5s');
    expect(message({ imagePolicy: { kubeConfigFile: '/k', retryBackoff: 300_001 } })).to.equal('valid value is between 1ns and 5m0s, got 5m0.001s');
  });

  it('refuses a missing configuration, kubeconfig file, or values of the wrong type', () => {
    expect(message(undefined)).to.equal('no config specified');
    expect(message({ imagePolicy: {} })).to.match(/^imagePolicy.kubeConfigFile is required/);
    expect(message({ imagePolicy: { kubeConfigFile: '/k', allowTTL: '5m' } })).to.equal('imagePolicy.allowTTL must be a whole number of seconds, got "5m"');
    expect(message({ imagePolicy: { kubeConfigFile: '/k', retryBackoff: 1.5 } })).to.equal('imagePolicy.retryBackoff must be a whole number of milliseconds, got 1.5');
    expect(message({ imagePolicy: { kubeConfigFile: '/k', defaultAllow: 'yes' } })).to.equal('imagePolicy.defaultAllow must be true or false, got "yes"');
    expect(message({ imagePolicy: 'x' })).to.equal('imagePolicy must be an object');
  });
});

describe('formatGoDuration', () => {
  it('spells durations as Go does', () => {
    const cases: Array<[bigint, string]> = [
      [0n, '0s'], [1n, '1ns'], [1500n, '1.5µs'], [500_000_000n, '500ms'], [1_500_000n, '1.5ms'],
      [1_000_000_000n, '1s'], [300_000_000_000n, '5m0s'], [3_600_000_000_000n, '1h0m0s'], [3_723_500_000_000n, '1h2m3.5s'],
      [-5_000_000_000n, '-5s'],
    ];
    for (const [ns, text] of cases) expect(formatGoDuration(ns), String(ns)).to.equal(text);
  });
});

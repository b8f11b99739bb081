import { expect } from 'chai';
import { FeatureGates, featureGatesHelp } from '../../../lib/scheme/feature-gates';
import { FEATURE_GATE_LIST } from '../../../lib/scheme/feature-gate-list';

function refusal(overrides: Record<string, boolean>): string {
  try {
    new FeatureGates(overrides);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${JSON.stringify(overrides)} was accepted`);
}

describe('FeatureGates', () => {
  it('has the 1.32 defaults: beta gates on, alpha gates off, GA gates on', () => {
    const g = new FeatureGates();
    expect(g.enabled('AnyVolumeDataSource')).to.equal(true);
    expect(g.enabled('RecoverVolumeExpansionFailure')).to.equal(true);
    expect(g.enabled('MutatingAdmissionPolicy')).to.equal(false);
    expect(g.enabled('WatchBookmark')).to.equal(true);
    // Removed after GA: kinds still ask them, and they are on.
    expect(g.enabled('ReadWriteOncePod')).to.equal(true);
    expect(g.warnings).to.deep.equal([]);
  });

  it('lets alpha gates be enabled and beta gates disabled', () => {
    const g = new FeatureGates({ AnyVolumeDataSource: false, MutatingAdmissionPolicy: true });
    expect(g.enabled('AnyVolumeDataSource')).to.equal(false);
    expect(g.enabled('MutatingAdmissionPolicy')).to.equal(true);
  });

  it('accepts a GA gate at its locked value with a warning, and refuses the other value', () => {
    const g = new FeatureGates({ WatchBookmark: true });
    expect(g.warnings).to.deep.equal(['Setting GA feature gate WatchBookmark=true. It will be removed in a future release.']);
    expect(refusal({ WatchBookmark: false })).to.equal('cannot set feature gate WatchBookmark to false, feature is locked to true');
  });

  it('warns when a deprecated gate is set', () => {
    expect(FEATURE_GATE_LIST.KMSv1.stage).to.equal('DEPRECATED');
    expect(new FeatureGates({ KMSv1: true }).warnings)
      .to.deep.equal(['Setting deprecated feature gate KMSv1=true. It will be removed in a future release.']);
  });

  it('refuses unknown and removed gates in component-base words', () => {
    expect(refusal({ NoSuchGate: true })).to.equal('unrecognized feature gate: NoSuchGate');
    expect(refusal({ ReadWriteOncePod: true })).to.equal('unrecognized feature gate: ReadWriteOncePod');
  });

  it('switches every alpha or beta gate with AllAlpha / AllBeta, a gate named explicitly winning', () => {
    const alpha = new FeatureGates({ MutatingAdmissionPolicy: false, AllAlpha: true });
    expect(alpha.enabled('StorageVersionAPI')).to.equal(true);
    expect(alpha.enabled('MutatingAdmissionPolicy')).to.equal(false);
    expect(alpha.enabled('AnyVolumeDataSource')).to.equal(true);
    const beta = new FeatureGates({ AllBeta: false, AnyVolumeDataSource: true });
    expect(beta.enabled('APIResponseCompression')).to.equal(false);
    expect(beta.enabled('AnyVolumeDataSource')).to.equal(true);
    expect(beta.enabled('WatchBookmark')).to.equal(true);
    expect(beta.enabled('StorageVersionAPI')).to.equal(false);
  });

  it('lists alpha and beta gates with stage and default in help, as kube-apiserver (GA and deprecated hidden)', () => {
    const lines = featureGatesHelp().split('\n');
    expect(lines[0]).to.equal('A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:');
    expect(lines).to.include.members([
      'AllAlpha=true|false (ALPHA - default=false)', 'AllBeta=true|false (BETA - default=false)',
      'AnyVolumeDataSource=true|false (BETA - default=true)', 'MutatingAdmissionPolicy=true|false (ALPHA - default=false)',
    ]);
    expect(lines.some((l) => l.startsWith('WatchBookmark=') || l.startsWith('KMSv1='))).to.equal(false);
    expect(lines.slice(1)).to.deep.equal([...lines.slice(1)].sort());
  });
});

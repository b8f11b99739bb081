import { expect } from 'chai';
import { FeatureGates, FEATURE_GATE_DEFAULTS } from '../../../lib/scheme/feature-gates';

describe('FeatureGates', () => {
  it('has the defaults of the release: beta gates on, alpha gates off', () => {
    const g = new FeatureGates();
    expect(g.enabled('AnyVolumeDataSource')).to.equal(true);
    expect(g.enabled('RecoverVolumeExpansionFailure')).to.equal(false);
    expect(Object.keys(FEATURE_GATE_DEFAULTS)).to.include.members(['ExpandCSIVolumes', 'ReadWriteOncePod']);
  });

  it('--feature-gates overrides known gates and keeps unknown names apart (they are off)', () => {
    const g = new FeatureGates({ AnyVolumeDataSource: false, RecoverVolumeExpansionFailure: true, NoSuchGate: true });
    expect(g.enabled('AnyVolumeDataSource')).to.equal(false);
    expect(g.enabled('RecoverVolumeExpansionFailure')).to.equal(true);
    expect(g.enabled('NoSuchGate')).to.equal(false);
    expect(g.unknown).to.deep.equal(['NoSuchGate']);
  });
});

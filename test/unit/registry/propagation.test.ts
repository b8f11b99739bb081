import { expect } from 'chai';
import { deletionFinalizers, FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../../../lib/registry/propagation';

describe('deletionFinalizers (propagation policy at delete time)', () => {
  it('Background and no options add nothing', () => {
    expect(deletionFinalizers([], {})).to.deep.equal({ changed: false, finalizers: [] });
    expect(deletionFinalizers(['example.com/a'], { propagationPolicy: 'Background' }))
      .to.deep.equal({ changed: false, finalizers: ['example.com/a'] });
  });

  it('Foreground appends foregroundDeletion after the existing finalizers', () => {
    expect(deletionFinalizers(['example.com/a'], { propagationPolicy: 'Foreground' }))
      .to.deep.equal({ changed: true, finalizers: ['example.com/a', FINALIZER_FOREGROUND] });
  });

  it('Orphan and orphanDependents=true append orphan', () => {
    expect(deletionFinalizers([], { propagationPolicy: 'Orphan' }).finalizers).to.deep.equal([FINALIZER_ORPHAN]);
    expect(deletionFinalizers([], { orphanDependents: true }).finalizers).to.deep.equal([FINALIZER_ORPHAN]);
  });

  it('orphanDependents=false removes a propagation finalizer set earlier (Background)', () => {
    expect(deletionFinalizers([FINALIZER_ORPHAN, 'x.io/y'], { orphanDependents: false }))
      .to.deep.equal({ changed: true, finalizers: ['x.io/y'] });
    expect(deletionFinalizers([FINALIZER_FOREGROUND], { orphanDependents: false }))
      .to.deep.equal({ changed: true, finalizers: [] });
  });

  it('a later request with another policy switches the finalizer', () => {
    expect(deletionFinalizers([FINALIZER_FOREGROUND], { propagationPolicy: 'Orphan' }).finalizers).to.deep.equal([FINALIZER_ORPHAN]);
    expect(deletionFinalizers([FINALIZER_ORPHAN], { propagationPolicy: 'Foreground' }).finalizers).to.deep.equal([FINALIZER_FOREGROUND]);
    expect(deletionFinalizers([FINALIZER_FOREGROUND], { propagationPolicy: 'Background' }).finalizers).to.deep.equal([]);
  });

  it('without a policy, a finalizer already present is kept as the choice made earlier', () => {
    expect(deletionFinalizers([FINALIZER_ORPHAN], {})).to.deep.equal({ changed: false, finalizers: [FINALIZER_ORPHAN] });
    expect(deletionFinalizers([FINALIZER_FOREGROUND], {})).to.deep.equal({ changed: false, finalizers: [FINALIZER_FOREGROUND] });
  });

  it('the kind default applies when nothing else decides; Unsupported never adds one', () => {
    expect(deletionFinalizers([], {}, 'OrphanDependents').finalizers).to.deep.equal([FINALIZER_ORPHAN]);
    expect(deletionFinalizers([], { propagationPolicy: 'Background' }, 'OrphanDependents').finalizers).to.deep.equal([]);
    expect(deletionFinalizers([], { propagationPolicy: 'Foreground' }, 'Unsupported')).to.deep.equal({ changed: false, finalizers: [] });
  });
});

/**
 * Deprecated versions: when a deprecation applies and Kubernetes' warning text.
 */
import { expect } from 'chai';
import { deprecationWarning, isDeprecatedAt, removedRelease } from '../../../lib/api/deprecation';

describe('deprecation', () => {
  const def = { group: 'admissionregistration.k8s.io', version: 'v1beta1', kind: 'MutatingWebhookConfiguration' };

  it("words the warning as Kubernetes' installer does", () => {
    expect(deprecationWarning(def, { deprecatedIn: [1, 16], removedIn: [1, 22], replacement: { ...def, version: 'v1' } }))
      .to.equal('admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration is deprecated in v1.16+, unavailable in v1.22+; use admissionregistration.k8s.io/v1 MutatingWebhookConfiguration');
    expect(deprecationWarning(def, { deprecatedIn: [1, 16] })).to.equal('admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration is deprecated in v1.16+');
    expect(deprecationWarning({ group: '', version: 'v1', kind: 'Thing' }, {})).to.equal('v1 Thing is deprecated');
    expect(deprecationWarning(def, { warning: 'custom words' })).to.equal('custom words');
  });

  it('applies from the deprecating release on', () => {
    expect(isDeprecatedAt({ deprecatedIn: [1, 32] }, [1, 32])).to.equal(true);
    expect(isDeprecatedAt({ deprecatedIn: [1, 33] }, [1, 32])).to.equal(false);
    expect(isDeprecatedAt({ deprecatedIn: [2, 0] }, [1, 32])).to.equal(false);
    expect(isDeprecatedAt({ deprecatedIn: [1, 16] })).to.equal(true);
    expect(isDeprecatedAt({})).to.equal(true);
    expect(isDeprecatedAt(undefined)).to.equal(false);
  });

  it('names the removal release as <major>.<minor>, empty without one', () => {
    expect(removedRelease({ removedIn: [1, 22] })).to.equal('1.22');
    expect(removedRelease({})).to.equal('');
  });
});

import { expect } from 'chai';
import { compareKubeAwareVersions, sortByKubeVersionPriority } from '../../../lib/meta/kube-version';

describe('Kubernetes version priority', () => {
  // apimachinery pkg/version/helpers_test.go: each list is in descending priority.
  const orders: string[][] = [
    ['v1', 'v1beta1'],
    ['v2', 'v1'],
    ['v10', 'v2'],
    ['v1', 'v2beta1'],
    ['v11beta2', 'v10beta3'],
    ['v10beta3', 'v3beta1'],
    ['v12alpha1', 'v11alpha2'],
    ['v11alpha2', 'v10alpha3'],
    ['v1beta1', 'v1alpha1'],
    ['v1alpha1', 'foo1'],
    ['foo1', 'foo10'],
    ['v1', 'v1x'],
  ];
  for (const [higher, lower] of orders) {
    it(`puts ${higher} before ${lower}`, () => {
      expect(compareKubeAwareVersions(higher, lower)).to.be.greaterThan(0);
      expect(compareKubeAwareVersions(lower, higher)).to.be.lessThan(0);
    });
  }

  it('sorts a CRD group the way discovery lists it', () => {
    expect(sortByKubeVersionPriority(['v1alpha1', 'foo10', 'v1beta2', 'v2', 'foo1', 'v1', 'v1beta1', 'v3alpha1'])).to.deep.equal(
      ['v2', 'v1', 'v1beta2', 'v1beta1', 'v3alpha1', 'v1alpha1', 'foo1', 'foo10']);
    expect(compareKubeAwareVersions('v1', 'v1')).to.equal(0);
  });
});

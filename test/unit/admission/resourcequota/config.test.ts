/**
 * The ResourceQuota plugin's --admission-control-config-file section: Kubernetes'
 * ResourceQuotaConfiguration (apiserver.config.k8s.io/v1) and Configuration
 * (resourcequota.admission.k8s.io/v1beta1, v1alpha1) with limitedResources, and one-line reasons
 * for what is not one.
 */
import { expect } from 'chai';
import { readQuotaConfiguration } from '../../../../lib/admission/resourcequota/config';

describe('ResourceQuota plugin configuration', () => {
  it('reads limitedResources of every accepted kind and version', () => {
    const limitedResources = [{ resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['critical'] }] },
      { apiGroup: '', resource: 'persistentvolumeclaims', matchContains: ['requests.storage'] }];
    const expected = {
      limitedResources: [
        { apiGroup: '', resource: 'pods', matchContains: [], matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['critical'] }] },
        { apiGroup: '', resource: 'persistentvolumeclaims', matchContains: ['requests.storage'], matchScopes: [] },
      ],
    };
    for (const [apiVersion, kind] of [['apiserver.config.k8s.io/v1', 'ResourceQuotaConfiguration'], ['resourcequota.admission.k8s.io/v1beta1', 'Configuration'],
      ['resourcequota.admission.k8s.io/v1alpha1', 'Configuration']]) {
      expect(readQuotaConfiguration({ apiVersion, kind, limitedResources }), apiVersion).to.deep.equal(expected);
    }
    expect(readQuotaConfiguration(undefined)).to.deep.equal({ limitedResources: [] });
  });

  it('refuses another kind, a resource missing, and a scope without an operator', () => {
    expect(() => readQuotaConfiguration({ apiVersion: 'v1', kind: 'ConfigMap' })).to.throw('expected ResourceQuotaConfiguration');
    expect(() => readQuotaConfiguration({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [{}] }))
      .to.throw('limitedResources[0].resource is required');
    expect(() => readQuotaConfiguration({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [{ resource: 'pods', matchScopes: [{ scopeName: 'BestEffort' }] }] }))
      .to.throw('limitedResources[0].matchScopes[0] needs scopeName and operator');
  });
});

/**
 * The label-selector string Kubernetes writes for a metav1.LabelSelector (lib/meta/label-format.ts:
 * the /scale subresource's status.selector, the wide tables' SELECTOR), and Go's %#v of a
 * selector and of a label map, which field errors print (lib/meta/go-print.ts).
 */
import { expect } from 'chai';
import { goLabelSelector, goStringMap } from '../../../lib/meta/go-print';
import { labelSelectorString } from '../../../lib/meta/label-format';

describe('label selector strings and Go printing (lib/meta)', () => {
  it('writes LabelSelectorAsSelector(...).String(): requirements sorted by key, In/NotIn values sorted', () => {
    expect(labelSelectorString({
      matchLabels: { tier: 'web', app: 'x' },
      matchExpressions: [
        { key: 'zone', operator: 'NotIn', values: ['b', 'a'] }, { key: 'env', operator: 'In', values: ['prod', 'dev'] },
        { key: 'canary', operator: 'DoesNotExist' }, { key: 'b', operator: 'Exists' },
      ],
    })).to.equal('app=x,b,!canary,env in (dev,prod),tier=web,zone notin (a,b)');
  });

  it('writes nothing for an absent or empty selector, and undefined for one that does not convert', () => {
    expect(labelSelectorString(undefined)).to.equal('');
    expect(labelSelectorString({})).to.equal('');
    expect(labelSelectorString({ matchExpressions: [{ key: 'a', operator: 'In' }] })).to.equal(undefined);
  });

  it('prints a selector and a label map as Go\'s %#v does', () => {
    expect(goLabelSelector({})).to.equal('v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}');
    expect(goLabelSelector({ matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'k', operator: 'Exists' }] })).to.equal(
      'v1.LabelSelector{MatchLabels:map[string]string{"a":"1", "b":"2"}, '
      + 'MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"k", Operator:"Exists", Values:[]string(nil)}}}');
    expect(goStringMap(undefined)).to.equal('map[string]string(nil)');
    expect(goStringMap({})).to.equal('map[string]string{}');
  });
});

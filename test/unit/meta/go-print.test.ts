/**
 * Label formats and Go printing shared by the workload kinds: the selector string that a Scale's
 * status.selector and the SELECTOR columns carry (metav1.LabelSelectorAsSelector(...).String(),
 * every operator, sorted by key), FormatLabelSelector's <none> and <error>, labels.FormatLabels,
 * and Go's %#v of selectors and label maps as Kubernetes' messages print them.
 */
import { expect } from 'chai';
import { goLabelSelector, goStringMap } from '../../../lib/meta/go-print';
import { formatLabelSelector, formatLabels, labelSelectorString } from '../../../lib/meta/label-format';

describe('label formats and Go printing (lib/meta)', () => {
  it('writes a selector as LabelSelectorAsSelector(...).String() does: every operator, sorted by key', () => {
    expect(labelSelectorString({
      matchLabels: { z: '1', app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'has', operator: 'Exists' },
        { key: 'gone', operator: 'DoesNotExist' },
      ],
    })).to.equal('app=web,env notin (prod),!gone,has,tier in (a,b),z=1');
  });

  it('writes nothing for an absent or empty selector, and <none> / <error> in a table', () => {
    expect(labelSelectorString(undefined)).to.equal('');
    expect(labelSelectorString({})).to.equal('');
    expect(formatLabelSelector(undefined)).to.equal('<none>');
    expect(formatLabelSelector({ matchLabels: {} })).to.equal('<none>');
    expect(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In' }] })).to.equal('<error>');
  });

  it('formats labels as labels.FormatLabels', () => {
    expect(formatLabels({ 'kubernetes.io/os': 'linux', disk: 'ssd' })).to.equal('disk=ssd,kubernetes.io/os=linux');
    expect(formatLabels(undefined)).to.equal('<none>');
    expect(formatLabels({})).to.equal('<none>');
  });

  it('prints Go\'s %#v of a label map and a selector (nil and empty apart)', () => {
    expect(goStringMap({ b: '2', a: '1' })).to.equal('map[string]string{"a":"1", "b":"2"}');
    expect(goStringMap(undefined)).to.equal('map[string]string(nil)');
    expect(goStringMap({})).to.equal('map[string]string{}');
    expect(goLabelSelector({ matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }] })).to.equal(
      'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{'
      + 'v1.LabelSelectorRequirement{Key:"k", Operator:"In", Values:[]string{"x", "y"}}}}');
  });
});

import { expect } from 'chai';
import { crSelectableFields } from '../../../../lib/apiextensions/serving/cr-selectable-fields';

describe('cr-selectable-fields', () => {
  const sf = crSelectableFields([{ jsonPath: '.spec.color' }, { jsonPath: '.spec.replicas' }, { jsonPath: '.spec.paused' }, { jsonPath: '.spec.ratio' }]);

  it('names each field by its path without the leading dot', () => {
    expect(sf.names).to.deep.equal(['spec.color', 'spec.replicas', 'spec.paused', 'spec.ratio']);
  });

  it("prints values as Go's fmt.Sprint; missing and null fields are empty", () => {
    expect(sf.fieldSet({ spec: { color: 'red', replicas: 42, paused: false, ratio: 0.5 } }))
      .to.deep.equal({ 'spec.color': 'red', 'spec.replicas': '42', 'spec.paused': 'false', 'spec.ratio': '0.5' });
    expect(sf.fieldSet({ spec: { color: null } }))
      .to.deep.equal({ 'spec.color': '', 'spec.replicas': '', 'spec.paused': '', 'spec.ratio': '' });
    expect(sf.fieldSet({})).to.deep.equal({ 'spec.color': '', 'spec.replicas': '', 'spec.paused': '', 'spec.ratio': '' });
  });

  it('has no fields when the version declares none', () => {
    expect(crSelectableFields(undefined).names).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import { fieldPathString, parseElement, serializeElement } from '../../../lib/fieldmanager/field-path';

describe('fieldPathString', () => {
  const cases: [Parameters<typeof fieldPathString>[0], string][] = [
    [[{ field: 'data' }, { field: 'key' }], '.data.key'],
    [['f:metadata', 'f:labels', 'f:app'], '.metadata.labels.app'],
    [[{ field: 'spec' }, { field: 'containers' }, { key: { name: 'x' } }, { field: 'image' }], '.spec.containers[name="x"].image'],
    [['f:metadata', 'f:finalizers', 'v:"a"'], '.metadata.finalizers[="a"]'],
    [['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'], '.spec.ports[port=80,protocol="TCP"]'],
    [[{ field: 'spec' }, { field: 'ports' }, { key: { protocol: 'TCP', port: 80 } }], '.spec.ports[port=80,protocol="TCP"]'],
    [['f:metadata', 'f:ownerReferences', 'k:{"uid":"u1"}'], '.metadata.ownerReferences[uid="u1"]'],
    [['f:list', 'i:3'], '.list[3]'],
    [['f:nums', 'v:2'], '.nums[=2]'],
    [['f:flags', 'v:true'], '.flags[=true]'],
    [[{ field: 'm' }, { value: 'quote"and\nnewline' }], '.m[="quote\\"and\\nnewline"]'],
    [[{ field: 'data' }, { field: 'a.b/c' }], '.data.a.b/c'],
    [[], ''],
  ];
  for (const [path, want] of cases) {
    it(`prints ${want || '(root)'}`, () => expect(fieldPathString(path)).to.equal(want));
  }
});

describe('path elements', () => {
  it('serialize keys with sorted key fields in compact JSON', () => {
    expect(serializeElement({ key: { protocol: 'TCP', containerPort: 80 } })).to.equal('k:{"containerPort":80,"protocol":"TCP"}');
    expect(serializeElement({ value: 'a' })).to.equal('v:"a"');
    expect(serializeElement({ field: 'x' })).to.equal('f:x');
    expect(serializeElement({ index: 4 })).to.equal('i:4');
  });

  it('parse back, unknown kinds as undefined', () => {
    expect(parseElement('k:{"name":"x"}')).to.deep.equal({ key: { name: 'x' } });
    expect(parseElement('v:null')).to.deep.equal({ value: null });
    expect(parseElement('i:7')).to.deep.equal({ index: 7 });
    expect(parseElement('z:whatever')).to.equal(undefined);
  });
});

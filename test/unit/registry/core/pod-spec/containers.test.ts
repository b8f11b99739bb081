import { expect } from 'chai';
import { defaultPullPolicy } from '../../../../../lib/registry/core/pod-spec/containers';

describe('defaultPullPolicy', () => {
  const cases: Array<[string, string]> = [
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.27', 'IfNotPresent'],
    ['registry.example:5000/team/app', 'Always'],
    ['registry.example:5000/team/app:2', 'IfNotPresent'],
    ['app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'IfNotPresent'],
    ['app:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'Always'],
  ];
  for (const [image, policy] of cases) {
    it(`${image} -> ${policy}`, () => expect(defaultPullPolicy(image)).to.equal(policy));
  }
});

import { expect } from 'chai';
import { controllerEnabled } from '../../../lib/controllers/enabled';

describe('controllerEnabled (--controllers)', () => {
  const rows: [string[], string, boolean][] = [
    [['*'], 'serviceaccount', true],
    [['*', '-serviceaccount'], 'serviceaccount', false],
    [['*', '-serviceaccount'], 'namespace', true],
    [['-serviceaccount', '*'], 'serviceaccount', false],
    [['serviceaccount'], 'serviceaccount', true],
    [['serviceaccount'], 'namespace', false],
    [['serviceaccount', '-serviceaccount'], 'serviceaccount', true],
    [[], 'namespace', false],
  ];
  for (const [entries, name, want] of rows) {
    it(`${JSON.stringify(entries)}: ${name} ${want ? 'runs' : 'does not run'}`, () => {
      expect(controllerEnabled(name as Parameters<typeof controllerEnabled>[0], entries)).to.equal(want);
    });
  }
});

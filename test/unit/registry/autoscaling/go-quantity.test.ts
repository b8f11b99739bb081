/**
 * goQuantity: a Quantity as Kubernetes' field errors print it (Go's %#v of what ParseQuantity
 * returns): the int64 amount and scale, and the string kept only when already canonical.
 */
import { expect } from 'chai';
import { goQuantity } from '../../../../lib/registry/autoscaling/horizontal-pod-autoscalers/go-quantity';

const q = (value: string, scale: number, s: string, format = 'DecimalSI') =>
  `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(s)}, Format:"${format}"}`;

describe('goQuantity (a Quantity in a field error)', () => {
  const rows: Array<[string, string]> = [
    ['-1', q('-1', 0, '-1')],
    ['0', q('0', 0, '0')],
    ['-500m', q('-500', -3, '-500m')],
    ['-0.5', q('-5', -1, '')],
    ['-2000', q('-2000', 0, '')],
    ['-1Gi', q('-1073741824', 0, '-1Gi', 'BinarySI')],
    ['-1e3', q('-1', 3, '-1e3', 'DecimalExponent')],
  ];
  rows.forEach(([input, printed]) => it(`prints ${input} as Go does`, () => expect(goQuantity(input)).to.equal(printed)));
  it('gives up (undefined) on what is no quantity or beyond the int64 path', () => {
    expect(goQuantity('abc')).to.equal(undefined);
    expect(goQuantity('-12345678901234567890')).to.equal(undefined);
  });
});

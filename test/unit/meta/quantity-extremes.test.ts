/**
 * Quantities with extreme exponents (a Pod's `cpu: 1e-999999999` or `memory: 1e999999999`) are
 * parsed and compared at once: the server must not compute 10^999999999 on a request's input
 * (requests <= limits, quota checks and CEL quantity functions compare them).
 */

import { expect } from 'chai';
import { compareQuantities, formatQuantity, parseQuantity } from '../../../lib/meta/quantity';

describe('quantity: extreme exponents', () => {
  it('rounds a vanishing amount up to one nano unit (printed 1e-9, its format) without computing its scale', () => {
    const started = Date.now();
    expect(formatQuantity(parseQuantity('1e-999999999'))).to.equal('1e-9');
    expect(formatQuantity(parseQuantity('-1e-999999999'))).to.equal('-1e-9');
    expect(Date.now() - started).to.be.lessThan(1000);
  });

  it('compares amounts of very different magnitudes by magnitude', () => {
    const started = Date.now();
    const huge = parseQuantity('1e999999999');
    expect(compareQuantities(huge, parseQuantity('1m'))).to.equal(1);
    expect(compareQuantities(parseQuantity('1m'), huge)).to.equal(-1);
    expect(compareQuantities(parseQuantity('-1e999999999'), parseQuantity('-1'))).to.equal(-1);
    expect(compareQuantities(parseQuantity('-1'), huge)).to.equal(-1);
    expect(Date.now() - started).to.be.lessThan(1000);
  });

  it('still compares amounts of the same magnitude exactly', () => {
    expect(compareQuantities(parseQuantity('1Gi'), parseQuantity('1G'))).to.equal(1);
    expect(compareQuantities(parseQuantity('1000m'), parseQuantity('1'))).to.equal(0);
    expect(compareQuantities(parseQuantity('999m'), parseQuantity('1'))).to.equal(-1);
    expect(compareQuantities(parseQuantity('0'), parseQuantity('0m'))).to.equal(0);
  });
});

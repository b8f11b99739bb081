import { expect } from 'chai';
import {
  QUANTITY_FORMAT_ERROR, QuantityError, canonicalQuantity, compareQuantities, formatQuantity, parseQuantity, quantityValue,
} from '../../../lib/meta/quantity';

describe('quantity', () => {
  describe('parseQuantity + formatQuantity: the canonical form Kubernetes serializes', () => {
    const vectors: Array<[string | number, string]> = [
      ['0', '0'], ['0Gi', '0'], ['1', '1'], ['1000', '1k'], ['1500', '1500'], ['1.5k', '1500'], ['2000000', '2M'],
      ['0.5', '500m'], ['100m', '100m'], ['0.1m', '100u'], ['1n', '1n'], ['0.1n', '1n'],
      ['1Ki', '1Ki'], ['1024', '1024'], ['1.5Gi', '1536Mi'], ['1024Mi', '1Gi'], ['1000Mi', '1000Mi'], ['1.5Ki', '1536'],
      ['0.5Ki', '512'], ['-1Gi', '-1Gi'], ['1e3', '1e3'], ['1E6', '1e6'], ['1.5e3', '1500'], ['12e-1', '1200e-3'],
      [5, '5'], [1.5, '1500m'], ['+2k', '2k'],
    ];
    for (const [input, want] of vectors) {
      it(`${JSON.stringify(input)} -> ${want}`, () => expect(formatQuantity(parseQuantity(input))).to.equal(want));
    }
  });

  it('rejects what is no quantity, with Kubernetes\' messages', () => {
    for (const bad of ['', '1Gb', 'ten', '1 Gi', '.', '--1']) {
      expect(() => parseQuantity(bad), bad).to.throw(QuantityError, QUANTITY_FORMAT_ERROR);
    }
    expect(() => parseQuantity('1KiB')).to.throw(QuantityError);
    expect(() => parseQuantity('1kk')).to.throw(QuantityError, "unable to parse quantity's suffix");
  });

  it('compares amounts whatever the suffix', () => {
    expect(compareQuantities(parseQuantity('1Gi'), parseQuantity('1024Mi'))).to.equal(0);
    expect(compareQuantities(parseQuantity('1G'), parseQuantity('1Gi'))).to.equal(-1);
    expect(compareQuantities(parseQuantity('1500m'), parseQuantity('1.4'))).to.equal(1);
  });

  it('Value() rounds up to an integer', () => {
    expect(quantityValue(parseQuantity('1500m'))).to.equal(2n);
    expect(quantityValue(parseQuantity('-500m'))).to.equal(0n);
    expect(quantityValue(parseQuantity('2Ki'))).to.equal(2048n);
  });

  it('canonicalQuantity rounds ResourceList values up to milli units, and leaves bad input alone', () => {
    expect(canonicalQuantity('0.0001', true)).to.equal('1m');
    expect(canonicalQuantity('0.0001')).to.equal('100u');
    expect(canonicalQuantity('bogus')).to.equal(undefined);
    expect(canonicalQuantity({})).to.equal(undefined);
  });
});

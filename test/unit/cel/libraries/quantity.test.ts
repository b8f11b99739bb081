/**
 * Kubernetes' quantity library: parsing as resource.Quantity does (suffixes, Kubernetes' error),
 * comparison across suffixes, arithmetic, and the integer conversions rules use for limits.
 */

import { table } from './table';

describe('cel library: quantity', () => {
  table([
    ['isQuantity("20")', true],
    ['isQuantity("20M")', true],
    ['isQuantity("20Mi")', true],
    ['isQuantity("1.5Gi")', true],
    ['isQuantity("500m")', true],
    ['isQuantity("1e3")', true],
    ['isQuantity("20Mb")', false],
    ['isQuantity("")', false],
    ['isQuantity("abc")', false],
    ['quantity("abc")', { error: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" }],
    ['quantity("1Gi").isGreaterThan(quantity("500Mi"))', true],
    ['quantity("1Gi").isLessThan(quantity("1G"))', false],
    ['quantity("1G").isLessThan(quantity("1Gi"))', true],
    ['quantity("1") == quantity("1000m")', true],
    ['quantity("1Ki") == quantity("1024")', true],
    ['quantity("1") == quantity("2")', false],
    ['quantity("200M").compareTo(quantity("0.2G"))', 0n],
    ['quantity("50k").compareTo(quantity("50M"))', -1n],
    ['quantity("50M").compareTo(quantity("50k"))', 1n],
    ['quantity("0").sign()', 0n],
    ['quantity("-50k").sign()', -1n],
    ['quantity("50k").sign()', 1n],
    ['quantity("50k").isInteger()', true],
    ['quantity("50m").isInteger()', false],
    ['quantity("9999999999999999999999999999999999999G").isInteger()', false],
    ['quantity("50k").asInteger()', 50000n],
    ['quantity("1.5Gi").asInteger()', 1610612736n],
    ['quantity("50m").asInteger()', { error: 'cannot convert value to integer' }],
    ['quantity("9999999999999999999999999999999999999G").asInteger()', { error: 'cannot convert value to integer' }],
    ['quantity("50.703k").asApproximateFloat()', 50703],
    ['quantity("500m").asApproximateFloat()', 0.5],
    ['quantity("50k").add(quantity("20k")) == quantity("70k")', true],
    ['quantity("50k").add(20) == quantity("50020")', true],
    ['quantity("50k").sub(quantity("20k")) == quantity("30k")', true],
    ['quantity("50k").sub(20).asInteger()', 49980n],
    ['quantity("1Gi").add(quantity("512Mi")).isGreaterThan(quantity("1.4Gi"))', true],
    ['quantity("100m").add(quantity("0.9")) == quantity("1")', true],
    ['self.limit == "" || quantity(self.limit).isLessThan(quantity("2Gi"))', true],
    // extreme exponents answer at once instead of computing 10^999999999
    ['quantity("1e999999999").isInteger()', false],
    ['quantity("1e999999999").compareTo(quantity("1"))', 1n],
    ['quantity("-1e999999999").isLessThan(quantity("-5"))', true],
    ['quantity("1e-999999999") == quantity("1n")', true],
    ['quantity("1e999999999").add(quantity("1e999999998")).isGreaterThan(quantity("1e999999999"))', true],
    ['quantity("1e-999999999").add(quantity("1e999999999"))', { error: 'quantity arithmetic out of range' }],
  ], { self: { limit: '1Gi' } });
});

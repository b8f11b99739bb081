/**
 * Standard-library behaviour as cel-go gives it where the engine differed: conversions messages use
 * (string(timestamp), string(duration), string(double) as Go prints it), int range errors, bytes
 * ordering, and the optional-types functions (ofNonZeroValue, optMap, optFlatMap, equality).
 */

import { table } from './table';

describe('cel standard library as cel-go', () => {
  table([
    ['int(42u)', 42n],
    ['int(18446744073709551615u)', { error: 'integer overflow' }],
    ['int(timestamp("2009-02-13T23:31:30Z"))', 1234567890n],
    ['int(1e99)', { error: 'integer overflow' }],
    ['int(-9.9)', -9n],
    ['string(timestamp("2009-02-13T23:31:30Z"))', '2009-02-13T23:31:30Z'],
    ['string(timestamp("2009-02-13T23:31:30.5Z"))', '2009-02-13T23:31:30.5Z'],
    ['string(duration("1000000s"))', '1000000s'],
    ['string(duration("1.5s"))', '1.5s'],
    ['string(duration("-90m"))', '-5400s'],
    ['duration(duration("100s")) == duration("100s")', true],
    ['timestamp(timestamp(1000000000)) == timestamp(1000000000)', true],
    ['string(1.5)', '1.5'],
    ['string(1e6)', '1e+06'],
    ['string(123456.0)', '123456'],
    ['string(0.0001)', '0.0001'],
    ['string(-0.00001)', '-1e-05'],
    ['string(b"\\xff")', { error: 'invalid UTF-8 in bytes, cannot convert to string' }],
    ['b"a" < b"b"', true],
    ['b"abc" <= b"abc"', true],
    ['b"" > b" "', false],
    ['optional.ofNonZeroValue(0).hasValue()', false],
    ['optional.ofNonZeroValue("").hasValue()', false],
    ['optional.ofNonZeroValue([]).hasValue()', false],
    ['optional.ofNonZeroValue(42).value()', 42n],
    ['optional.of(42).optMap(y, y + 1).value()', 43n],
    ['optional.none().optMap(y, y + 1).hasValue()', false],
    ['{"key": {"subkey": "v"}}.?key.optFlatMap(k, k.?subkey).value()', 'v'],
    ['{"key": {}}.?key.optFlatMap(k, k.?subkey).hasValue()', false],
    ['optional.of(1) == optional.of(1)', true],
    ['optional.none() == optional.none()', true],
    ['optional.of(1) != optional.none()', true],
    ['self.?spec.?replicas.orValue(1)', 3n],
    ['self.?spec.?missing.orValue(1)', 1n],
  ], { self: { spec: { replicas: 3 } } });
});

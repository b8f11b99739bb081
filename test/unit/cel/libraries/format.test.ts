/**
 * Kubernetes' format library: named formats with `.validate()` returning optional.none for a valid
 * string and Kubernetes' messages otherwise, as messageExpressions print them.
 */

import { table } from './table';

const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('cel library: format', () => {
  table([
    ['format.dns1123Label().validate("my-label-name")', { optional: null }],
    ['format.dns1123Label().validate("My_Label")', { optional: [LABEL_MSG] }],
    ['format.dns1123Label().validate("a.b")', { optional: ['must not contain dots'] }],
    ['format.dns1123Subdomain().validate("apiextensions.k8s.io").hasValue()', false],
    ['format.dns1123Subdomain().validate("-a").hasValue()', true],
    ['format.dns1035Label().validate("my-label-name").hasValue()', false],
    ['format.dns1035Label().validate("1abc").hasValue()', true],
    ['format.qualifiedName().validate("apiextensions.k8s.io/v1beta1").hasValue()', false],
    ['format.qualifiedName().validate("a/b/c").hasValue()', true],
    ['format.dns1123LabelPrefix().validate("my-label-prefix-").hasValue()', false],
    ['format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-").hasValue()', false],
    ['format.dns1035LabelPrefix().validate("my-label-prefix-").hasValue()', false],
    ['format.labelValue().validate("my_value").hasValue()', false],
    ['format.labelValue().validate("").hasValue()', false],
    ['format.labelValue().validate("-bad").hasValue()', true],
    ['format.uri().validate("http://example.com").hasValue()', false],
    ['format.uri().validate("example.com")', { optional: ['parse "example.com": invalid URI for request'] }],
    ['format.uuid().validate("123e4567-e89b-12d3-a456-426614174000").hasValue()', false],
    ['format.uuid().validate("123e4567e89b12d3a456426614174000").hasValue()', false],
    ['format.uuid().validate("not-a-uuid")', { optional: ['does not match the UUID format'] }],
    ['format.byte().validate("aGVsbG8=").hasValue()', false],
    ['format.byte().validate("aGVsbG8")', { optional: ['invalid base64'] }],
    ['format.date().validate("2021-01-01").hasValue()', false],
    ['format.date().validate("2021-02-29")', { optional: ['invalid date'] }],
    ['format.date().validate("2020-02-29").hasValue()', false],
    ['format.datetime().validate("2021-01-01T00:00:00Z").hasValue()', false],
    ['format.datetime().validate("2021-01-01T00:00:00.123+02:00").hasValue()', false],
    ['format.datetime().validate("2021-01-01 00:00:00")', { optional: ['invalid datetime'] }],
    ['format.named("dns1123Label").hasValue()', true],
    ['format.named("dns1123Label").value().validate("ok").hasValue()', false],
    ['format.named("unknown").hasValue()', false],
    ['format.named("dns1123Label").value() == format.dns1123Label()', true],
    ['format.dns1123Label().validate(self.name).orValue([]).join(", ")', ''],
  ], { self: { name: 'valid-name' } });
});

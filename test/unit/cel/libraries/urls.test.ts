/**
 * Kubernetes' URL library: what `url()` / `isURL()` accept (Go's ParseRequestURI: absolute URLs and
 * absolute paths) and the parts the getters return, as webhook and gateway CRD rules use them.
 */

import { table } from './table';

describe('cel library: URLs', () => {
  table([
    ['isURL("https://example.com")', true],
    ['isURL("https://user:pass@example.com:80/path?query=val#fragment")', true],
    ['isURL("/absolute-path")', true],
    ['isURL("../relative-path")', false],
    ['isURL("example.com")', false],
    ['isURL("")', false],
    ['isURL("https://exa mple.com")', false],
    ['isURL("https://example.com:port")', false],
    ['url("https://example.com:80/").getScheme()', 'https'],
    ['url("HTTPS://example.com/").getScheme()', 'https'],
    ['url("/path").getScheme()', ''],
    ['url("https://example.com:80/").getHost()', 'example.com:80'],
    ['url("https://example.com/").getHost()', 'example.com'],
    ['url("https://[::1]:80/").getHost()', '[::1]:80'],
    ['url("https://[::1]/").getHost()', '[::1]'],
    ['url("/path").getHost()', ''],
    ['url("https://example.com:80/").getHostname()', 'example.com'],
    ['url("https://[::1]:80/").getHostname()', '::1'],
    ['url("https://127.0.0.1/").getHostname()', '127.0.0.1'],
    ['url("https://example.com:80/").getPort()', '80'],
    ['url("https://example.com/").getPort()', ''],
    ['url("https://example.com/path with spaces/").getEscapedPath()', '/path%20with%20spaces/'],
    ['url("https://example.com/path%20with%20spaces/").getEscapedPath()', '/path%20with%20spaces/'],
    ['url("https://example.com").getEscapedPath()', ''],
    ['url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()', { k1: ['a'], k2: ['b', 'c'] }],
    ['url("https://example.com/path?key=a%20b+c").getQuery()', { key: ['a b c'] }],
    ['url("https://example.com/path?k1=a;k2=b").getQuery()', {}],
    ['url("https://example.com/path").getQuery()', {}],
    ['url("https://example.com/path?k=v#frag").getQuery()["k"]', ['v']],
    ['url("https://example.com/a") == url("https://example.com/a")', true],
    ['url("https://example.com/a") == url("https://example.com/b")', false],
    ['url("../relative-path")', { error: 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request' }],
    ['url("")', { error: 'URL parse error during conversion from string: parse "": empty url' }],
    ['url(":foo")', { error: 'URL parse error during conversion from string: parse ":foo": missing protocol scheme' }],
    ['url("https://example.com:port/")', { error: 'URL parse error during conversion from string: parse "https://example.com:port/": invalid port ":port" after host' }],
    ['url("https://exa mple.com/")', { error: 'URL parse error during conversion from string: parse "https://exa mple.com/": invalid character " " in host name' }],
    ['url("https://example.com/%zz")', { error: 'URL parse error during conversion from string: parse "https://example.com/%zz": invalid URL escape "%zz"' }],
  ]);
});

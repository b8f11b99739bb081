/**
 * --authentication-config files: decoding (versions, strict fields) and validation with
 * Kubernetes 1.32's field paths and messages, CEL expressions compiled and their result types
 * checked, and the flag rule against the --oidc-* flags.
 */
import { expect } from 'chai';
import { decodeAuthenticationConfiguration } from '../../../lib/authn/config/types';
import { aggregate, validateAuthenticationConfiguration } from '../../../lib/authn/config/validation';
import { loadAuthenticationConfiguration } from '../../../lib/authn/config/authentication-config';
import { parseFlags } from '../../../lib/server/flags';

type Json = Record<string, unknown>;
const HEAD = { apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'AuthenticationConfiguration' };
const SA_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** A valid authenticator, changed by `patch` (a shallow merge per section). */
function jwt(patch: { issuer?: Json; claimMappings?: Json; claimValidationRules?: Json[]; userValidationRules?: Json[] } = {}): Json {
  return {
    issuer: { url: 'https://issuer.example.com', audiences: ['orch'], ...patch.issuer },
    claimMappings: { username: { claim: 'sub', prefix: '' }, ...patch.claimMappings },
    ...(patch.claimValidationRules ? { claimValidationRules: patch.claimValidationRules } : {}),
    ...(patch.userValidationRules ? { userValidationRules: patch.userValidationRules } : {}),
  };
}

/** The formatted field errors of a configuration of these authenticators. */
function errorsOf(authenticators: Json[], extra: Json = {}): string[] {
  const config = decodeAuthenticationConfiguration(JSON.stringify({ ...HEAD, jwt: authenticators, ...extra }));
  return validateAuthenticationConfiguration(config, [SA_ISSUER]).errors.map((e) => `${e.field}: ${e.message}`);
}

describe('AuthenticationConfiguration validation', () => {
  it('accepts a complete v1beta1 configuration of two issuers, and v1alpha1 alike', () => {
    const two = [jwt({
      claimMappings: {
        username: { expression: 'claims.sub + "@a"' }, groups: { claim: 'groups', prefix: 'a:' }, uid: { claim: 'sub' },
        extra: [{ key: 'example.com/tenant', valueExpression: 'claims.tenant' }],
      },
      claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }, { expression: 'claims.exp - claims.iat <= 86400', message: 'too long' }],
      userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'no system users' }],
    }), jwt({ issuer: { url: 'https://other.example.com/tenant', audiences: ['a', 'b'], audienceMatchPolicy: 'MatchAny' } })];
    expect(errorsOf(two)).to.deep.equal([]);
    const alpha = decodeAuthenticationConfiguration(JSON.stringify({ ...HEAD, apiVersion: 'apiserver.config.k8s.io/v1alpha1', jwt: two }));
    expect(alpha.jwt).to.have.length(2);
  });

  const rows: { what: string; jwt: Json[]; anonymous?: Json; errors: string[] }[] = [
    { what: 'a missing issuer URL', jwt: [jwt({ issuer: { url: '' } })], errors: ['jwt[0].issuer.url: Required value'] },
    { what: 'an http issuer', jwt: [jwt({ issuer: { url: 'http://issuer.example.com' } })], errors: ['jwt[0].issuer.url: Invalid value: "http://issuer.example.com": URL scheme must be https'] },
    {
      what: 'an issuer with a query, fragment and user',
      jwt: [jwt({ issuer: { url: 'https://u:p@issuer.example.com/?a=b#f' } })],
      errors: [
        'jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example.com/?a=b#f": URL must not contain a username or password',
        'jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example.com/?a=b#f": URL must not contain a query',
        'jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example.com/?a=b#f": URL must not contain a fragment',
      ],
    },
    {
      what: 'the service-account issuer claimed by a JWT authenticator',
      jwt: [jwt({ issuer: { url: SA_ISSUER } })],
      errors: [`jwt[0].issuer.url: Invalid value: "${SA_ISSUER}": URL must not overlap with disallowed issuers: [${SA_ISSUER}]`],
    },
    {
      what: 'a discovery URL equal to the issuer URL',
      jwt: [jwt({ issuer: { discoveryURL: 'https://issuer.example.com/' } })],
      errors: ['jwt[0].issuer.discoveryURL: Invalid value: "https://issuer.example.com/": discoveryURL must be different from URL'],
    },
    { what: 'no audiences', jwt: [jwt({ issuer: { audiences: [] } })], errors: ['jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required'] },
    {
      what: 'duplicate and empty audiences without MatchAny',
      jwt: [jwt({ issuer: { audiences: ['a', 'a', ''] } })],
      errors: ['jwt[0].issuer.audiences[1]: Duplicate value: "a"', 'jwt[0].issuer.audiences[2]: Required value',
        'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences'],
    },
    {
      what: 'an unknown audienceMatchPolicy for one audience',
      jwt: [jwt({ issuer: { audienceMatchPolicy: 'MatchAll' } })],
      errors: ['jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience'],
    },
    {
      what: 'a certificate authority that holds no certificate',
      jwt: [jwt({ issuer: { certificateAuthority: 'not a pem' } })],
      errors: ['jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates'],
    },
    {
      what: 'two authenticators of the same issuer URL',
      jwt: [jwt(), jwt()],
      errors: ['jwt[1].issuer.url: Duplicate value: "https://issuer.example.com"'],
    },
    {
      what: 'a username claim without a prefix',
      jwt: [jwt({ claimMappings: { username: { claim: 'sub' } } })],
      errors: ['jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing'],
    },
    {
      what: 'no username mapping',
      jwt: [jwt({ claimMappings: { username: {} } })],
      errors: ['jwt[0].claimMappings.username: Required value: claim or expression is required'],
    },
    {
      what: 'a username claim and expression together',
      jwt: [jwt({ claimMappings: { username: { claim: 'sub', expression: 'claims.sub' } } })],
      errors: ['jwt[0].claimMappings.username: Invalid value: "": claim and expression can\'t both be set'],
    },
    {
      what: 'a username expression with a prefix',
      jwt: [jwt({ claimMappings: { username: { expression: 'claims.sub', prefix: 'x:' } } })],
      errors: ['jwt[0].claimMappings.username.prefix: Invalid value: "x:": may not be specified when expression is set'],
    },
    {
      what: 'a groups claim without a prefix',
      jwt: [jwt({ claimMappings: { groups: { claim: 'groups' } } })],
      errors: ['jwt[0].claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing'],
    },
    {
      what: 'a uid claim and expression together',
      jwt: [jwt({ claimMappings: { uid: { claim: 'sub', expression: 'claims.sub' } } })],
      errors: ['jwt[0].claimMappings.uid: Invalid value: "": claim and expression can\'t both be set'],
    },
    {
      what: 'a username expression that does not compile',
      jwt: [jwt({ claimMappings: { username: { expression: 'claims.sub +' } } })],
      errors: ['jwt[0].claimMappings.username.expression: Invalid value: "claims.sub +": compilation failed: '],
    },
    {
      what: 'claims.email in the username without claims.email_verified anywhere',
      jwt: [jwt({ claimMappings: { username: { expression: 'claims.email' } } })],
      errors: ['jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression'],
    },
    {
      what: 'extra keys that are not domain-prefixed, upper case, reserved or repeated',
      jwt: [jwt({
        claimMappings: {
          extra: [
            { key: 'tenant', valueExpression: 'claims.t' }, { key: 'Example.com/T', valueExpression: 'claims.t' },
            { key: 'kubernetes.io/t', valueExpression: 'claims.t' }, { key: 'a.example.com/t', valueExpression: 'claims.t' },
            { key: 'a.example.com/t', valueExpression: 'claims.u' }, { key: 'b.example.com/t', valueExpression: '' },
          ],
        },
      })],
      errors: [
        'jwt[0].claimMappings.extra[0].key: Invalid value: "tenant": must be a domain-prefixed path (such as "acme.io/foo")',
        'jwt[0].claimMappings.extra[1].key: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
        'jwt[0].claimMappings.extra[1].key: Invalid value: "Example.com/T": must be lowercase',
        'jwt[0].claimMappings.extra[2].key: Invalid value: "kubernetes.io/t": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
        'jwt[0].claimMappings.extra[4].key: Duplicate value: "a.example.com/t"',
        'jwt[0].claimMappings.extra[5].valueExpression: Required value',
      ],
    },
    {
      what: 'claim validation rules that are empty, both, repeated or not boolean',
      jwt: [jwt({
        claimValidationRules: [
          {}, { claim: 'a', expression: 'true' }, { claim: 'hd', requiredValue: 'x', message: 'm' }, { claim: 'hd', requiredValue: 'y' },
          { expression: 'claims.a == "b"', requiredValue: 'x' }, { expression: 'claims.a == "b"' }, { expression: '"text"' },
        ],
      })],
      errors: [
        'jwt[0].claimValidationRules[0]: Required value: claim or expression is required',
        'jwt[0].claimValidationRules[1]: Invalid value: "a": claim and expression can\'t both be set',
        'jwt[0].claimValidationRules[2].message: Invalid value: "m": may not be specified when claim is set',
        'jwt[0].claimValidationRules[3].claim: Duplicate value: "hd"',
        'jwt[0].claimValidationRules[4].requiredValue: Invalid value: "x": may not be specified when expression is set',
        'jwt[0].claimValidationRules[5].expression: Duplicate value: "claims.a == \\"b\\""',
        'jwt[0].claimValidationRules[6].expression: Invalid value: "\\"text\\"": must evaluate to bool',
      ],
    },
    {
      what: 'user validation rules that are empty, repeated, unknown fields or not boolean',
      jwt: [jwt({
        userValidationRules: [
          { expression: '' }, { expression: 'user.username != ""' }, { expression: 'user.username != ""' }, { expression: 'user.name == "x"' },
          { expression: 'user.groups' },
        ],
      })],
      errors: [
        'jwt[0].userValidationRules[0].expression: Required value',
        'jwt[0].userValidationRules[2].expression: Duplicate value: "user.username != \\"\\""',
        'jwt[0].userValidationRules[3].expression: Invalid value: "user.name == \\"x\\"": compilation failed: ',
        'jwt[0].userValidationRules[4].expression: Invalid value: "user.groups": must evaluate to bool',
      ],
    },
    {
      what: 'anonymous conditions while anonymous is disabled',
      jwt: [],
      anonymous: { enabled: false, conditions: [{ path: '/livez' }] },
      errors: ['anonymous.conditions: Invalid value: [{"path":"/livez"}]: enabled should be set to true when conditions are defined'],
    },
  ];
  for (const r of rows) {
    it(`refuses ${r.what}`, () => {
      const got = errorsOf(r.jwt, r.anonymous ? { anonymous: r.anonymous } : {});
      expect(got).to.have.length(r.errors.length, got.join('\n'));
      // A compilation error's detail is the CEL engine's: only its start is compared.
      r.errors.forEach((e, i) => (e.endsWith('compilation failed: ') ? expect(got[i].startsWith(e), got[i]).to.equal(true) : expect(got[i]).to.equal(e)));
    });
  }

  it('refuses more than 64 authenticators', () => {
    const many = Array.from({ length: 65 }, (_, i) => jwt({ issuer: { url: `https://i${i}.example.com` } }));
    expect(errorsOf(many)).to.deep.equal(['jwt: Too many: 65: must have at most 64 items']);
  });

  it('reports one error as is and several in brackets, as the start error', () => {
    expect(() => loadAuthenticationConfiguration(JSON.stringify({ ...HEAD, jwt: [jwt({ claimMappings: { username: { claim: 'sub' } } })] }), []))
      .to.throw('invalid authentication configuration: jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing');
    const config = decodeAuthenticationConfiguration(JSON.stringify({ ...HEAD, jwt: [jwt({ issuer: { url: 'http://a' } }), jwt({ issuer: { url: 'http://a' } })] }));
    expect(aggregate(validateAuthenticationConfiguration(config, []).errors)).to.equal('[jwt[0].issuer.url: Invalid value: "http://a": URL scheme must be https, '
      + 'jwt[1].issuer.url: Invalid value: "http://a": URL scheme must be https, jwt[1].issuer.url: Duplicate value: "http://a"]');
  });
});

describe('AuthenticationConfiguration decoding', () => {
  const yaml = [
    'apiVersion: apiserver.config.k8s.io/v1beta1', 'kind: AuthenticationConfiguration', 'jwt:', '- issuer:',
    '    url: https://issuer.example.com', '    audiences: [orch]', '  claimMappings:', '    username:', '      claim: sub', '      prefix: ""',
  ].join('\n');

  it('reads YAML, and keeps an empty prefix apart from an absent one', () => {
    const c = decodeAuthenticationConfiguration(yaml);
    expect(c.jwt[0].issuer.url).to.equal('https://issuer.example.com');
    expect(c.jwt[0].claimMappings.username).to.deep.equal({ claim: 'sub', prefix: '', expression: undefined });
    expect(c.anonymous).to.equal(undefined);
  });

  const bad: [string, string, RegExp][] = [
    ['an empty file', '', /^empty config data$/],
    ['another kind', yaml.replace('kind: AuthenticationConfiguration', 'kind: AuthorizationConfiguration'), /no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io\/v1beta1"/],
    ['a version 1.32 does not read', yaml.replace('v1beta1', 'v2'), /no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io\/v2"/],
    ['an unknown field', `${yaml}\n      claims: x`, /^strict decoding error: unknown field "jwt\[0\].claimMappings.username.claims"$/],
    ['a duplicated field', `${yaml}\n      prefix: "x"`, /^error converting YAML to JSON/],
    ['audiences that are not a list', yaml.replace('[orch]', 'orch'), /cannot unmarshal string into Go struct field jwt\[0\].issuer.audiences of type array/],
    ['a file that is not YAML', 'jwt: [', /^error converting YAML to JSON/],
  ];
  for (const [what, text, message] of bad) {
    it(`refuses ${what}`, () => expect(() => decodeAuthenticationConfiguration(text)).to.throw(message));
  }
});

describe('--authentication-config with the --oidc-* flags', () => {
  it('refuses them together with Kubernetes\' message', () => {
    for (const oidc of ['--oidc-issuer-url=https://a.example.com', '--oidc-groups-claim=groups', '--oidc-signing-algs=ES256']) {
      expect(() => parseFlags(['--authentication-config=/tmp/a.yaml', oidc])).to.throw('authentication-config file and oidc-* flags are mutually exclusive');
    }
  });

  it('accepts the file alone, and --oidc-issuer-url still needs --oidc-client-id without it', () => {
    expect(parseFlags(['--authentication-config=/tmp/a.yaml']).authenticationConfig).to.equal('/tmp/a.yaml');
    expect(() => parseFlags(['--oidc-issuer-url=https://a.example.com'])).to.throw(/oidc-client-id/);
  });
});

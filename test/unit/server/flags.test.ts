import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { FLAGS, FlagError, flagsWithoutEffect, helpText, parseCommandLine, parseDuration, parseFlags } from '../../../lib/server/flags';

/** The FlagError parseFlags throws for `argv`; fails the test when it does not throw one. */
function flagError(argv: string[]): FlagError {
  try {
    parseFlags(argv);
  } catch (err) {
    expect(err).to.be.instanceOf(FlagError);
    return err as FlagError;
  }
  throw new Error(`parseFlags(${JSON.stringify(argv)}) did not throw`);
}

describe('parseFlags', () => {
  describe('defaults', () => {
    it('fills every field when no flag is given', () => {
      const c = parseFlags([]);
      expect(c.help).to.equal(false);
      expect(c.dataDir).to.equal('./.data');
      expect(c.flavor).to.equal('orch');
      expect(c.etcdServers).to.deep.equal([]);
      expect(c.etcdPrefix).to.equal('/registry');
      expect(c.etcdBinary).to.equal('etcd');
      expect(c.securePort).to.equal(6443);
      expect(c.bindAddress).to.equal('127.0.0.1');
      expect(c.authorizationMode).to.deep.equal(['RBAC']);
      expect(c.runtimeConfig).to.deep.equal({});
      expect(c.featureGates).to.deep.equal({});
      expect(c.livezGracePeriodMs).to.equal(0);
      expect(c.requestTimeoutMs).to.equal(60_000);
      expect(c.minRequestTimeout).to.equal(1800);
      expect(c.etcdCompactionIntervalMs).to.equal(300_000);
      expect(c.maxRequestsInflight).to.equal(400);
      expect(c.maxMutatingRequestsInflight).to.equal(200);
      expect(c.watchCache).to.equal(true);
      expect(c.anonymousAuth).to.equal(true);
      expect(c.storageMediaType).to.equal('application/json');
      expect(c.logLevel).to.equal('info');
      expect(c.v).to.equal(0);
      expect(c.tlsCertFile).to.equal('');
    });

    it('has one config field per flag and no field without a flag', () => {
      const keys = Object.keys(parseFlags([])).sort();
      // The kube-apiserver flags without effect share one field (kubeFlagsWithoutEffect), by name.
      expect(keys).to.deep.equal([...new Set(FLAGS.map((f) => f.key))].sort());
    });

    it('does not share default lists between parses', () => {
      parseFlags([]).authorizationMode.push('RBAC');
      expect(parseFlags([]).authorizationMode).to.deep.equal(['RBAC']);
    });
  });

  describe('syntax', () => {
    it('accepts --name=value and --name value', () => {
      expect(parseFlags(['--secure-port=7443']).securePort).to.equal(7443);
      expect(parseFlags(['--secure-port', '7443']).securePort).to.equal(7443);
      expect(parseFlags(['--data-dir', '/tmp/x', '--flavor=kubernetes'])).to.include({ dataDir: '/tmp/x', flavor: 'kubernetes' });
    });

    it('keeps everything after the first = as the value', () => {
      expect(parseFlags(['--external-hostname=a=b']).externalHostname).to.equal('a=b');
    });

    it('lets the last occurrence of a scalar flag win', () => {
      expect(parseFlags(['--secure-port=1', '--secure-port=2']).securePort).to.equal(2);
    });

    it('accepts port 0 (pick a free port)', () => {
      expect(parseFlags(['--secure-port=0']).securePort).to.equal(0);
    });

    it('reads -v / --v and -h / --help', () => {
      expect(parseFlags(['-v', '4']).v).to.equal(4);
      expect(parseFlags(['--v=2']).v).to.equal(2);
      expect(parseFlags(['-h']).help).to.equal(true);
      expect(parseFlags(['--help']).help).to.equal(true);
    });

    it('skips cross-flag rules when --help is given', () => {
      expect(parseFlags(['--tls-cert-file=a.crt', '--help']).help).to.equal(true);
    });

    it('rejects an unknown flag with a one-line message', () => {
      const err = flagError(['--foo']);
      expect(err.message).to.equal('unknown flag: --foo');
      expect(err.code).to.equal('UnknownFlag');
      expect(flagError(['--foo=bar']).message).to.equal('unknown flag: --foo');
      expect(flagError(['-q']).message).to.equal('unknown flag: -q');
    });

    it('rejects a value flag without its value', () => {
      const err = flagError(['--secure-port']);
      expect(err.code).to.equal('MissingValue');
      expect(err.message).to.equal('flag needs an argument: --secure-port');
      expect(flagError(['--data-dir', '--flavor=orch']).code).to.equal('MissingValue');
    });

    it('rejects positional arguments', () => {
      expect(flagError(['serve']).code).to.equal('UnexpectedArgument');
      expect(flagError(['--', 'x']).code).to.equal('UnexpectedArgument');
      expect(parseFlags(['--secure-port=1', '--']).securePort).to.equal(1);
    });
  });

  describe('booleans', () => {
    it('treats a bare flag as true and does not take the next argument', () => {
      expect(parseFlags(['--profiling', '--secure-port=1'])).to.include({ profiling: true, securePort: 1 });
      expect(flagError(['--watch-cache', 'false']).code).to.equal('UnexpectedArgument');
    });

    for (const word of ['1', 't', 'T', 'TRUE', 'true', 'True']) {
      it(`reads --enable-bootstrap-token-auth=${word} as true`, () => {
        expect(parseFlags([`--enable-bootstrap-token-auth=${word}`]).enableBootstrapTokenAuth).to.equal(true);
      });
    }
    for (const word of ['0', 'f', 'F', 'FALSE', 'false', 'False']) {
      it(`reads --watch-cache=${word} as false`, () => {
        expect(parseFlags([`--watch-cache=${word}`]).watchCache).to.equal(false);
      });
    }

    it('rejects other spellings', () => {
      const err = flagError(['--anonymous-auth=yes']);
      expect(err.code).to.equal('InvalidValue');
      expect(err.message).to.equal('invalid value "yes" for --anonymous-auth: must be a boolean (true or false)');
      expect(flagError(['--anonymous-auth=']).code).to.equal('InvalidValue');
    });
  });

  describe('durations', () => {
    it('parses Go durations into milliseconds', () => {
      expect(parseDuration('1h30m')).to.equal(5_400_000);
      expect(parseDuration('500ms')).to.equal(500);
      expect(parseDuration('5m')).to.equal(300_000);
      expect(parseDuration('30s')).to.equal(30_000);
      expect(parseDuration('0')).to.equal(0);
      expect(parseDuration('1.5s')).to.equal(1500);
      expect(parseDuration('2us')).to.equal(0.002);
      expect(parseDuration('-1m')).to.equal(-60_000);
    });

    it('rejects unknown units, missing units and garbage', () => {
      expect(() => parseDuration('5x')).to.throw(FlagError, 'unknown unit "x" in duration "5x"');
      expect(() => parseDuration('5')).to.throw(FlagError, 'missing unit in duration "5"');
      expect(() => parseDuration('')).to.throw(FlagError, 'invalid duration ""');
      expect(() => parseDuration('h')).to.throw(FlagError, 'invalid duration "h"');
      expect(() => parseDuration('.s')).to.throw(FlagError, 'invalid duration ".s"');
    });

    it('fills the *Ms fields from duration flags', () => {
      const c = parseFlags(['--livez-grace-period=1h30m', '--request-timeout', '500ms',
        '--shutdown-delay-duration=30s', '--shutdown-watch-termination-grace-period=0', '--etcd-compaction-interval=1m']);
      expect(c).to.include({
        livezGracePeriodMs: 5_400_000, requestTimeoutMs: 500, shutdownDelayDurationMs: 30_000,
        shutdownWatchTerminationGracePeriodMs: 0, etcdCompactionIntervalMs: 60_000,
      });
    });

    it('reports a bad duration flag with the flag name', () => {
      expect(flagError(['--request-timeout=5x']).message)
        .to.equal('invalid value "5x" for --request-timeout: unknown unit "x" in duration "5x"');
      expect(flagError(['--livez-grace-period=-1s']).message)
        .to.equal('invalid value "-1s" for --livez-grace-period: must not be negative');
    });
  });

  describe('lists and maps', () => {
    it('splits comma lists and trims blanks', () => {
      const c = parseFlags(['--enable-admission-plugins=NamespaceLifecycle, LimitRanger,', '--api-audiences', 'a,b']);
      expect(c.enableAdmissionPlugins).to.deep.equal(['NamespaceLifecycle', 'LimitRanger']);
      expect(c.apiAudiences).to.deep.equal(['a', 'b']);
    });

    it('replaces the default on first use and appends on repeats', () => {
      expect(parseFlags(['--authorization-mode=RBAC', '--authorization-mode=Node']).authorizationMode)
        .to.deep.equal(['RBAC', 'Node']);
    });

    it('validates authorization modes', () => {
      expect(flagError(['--authorization-mode=RBAC,Magic']).message)
        .to.equal('invalid value "RBAC,Magic" for --authorization-mode: "Magic" is not one of AlwaysAllow, AlwaysDeny, RBAC, Node, Webhook, ABAC');
      expect(flagError(['--authorization-mode=RBAC,RBAC']).code).to.equal('InvalidValue');
      expect(flagError(['--authorization-mode=']).code).to.equal('InvalidValue');
    });

    it('parses --runtime-config into a map with true as the default value', () => {
      expect(parseFlags(['--runtime-config=api/all=false,v1,batch/v1beta1=true']).runtimeConfig)
        .to.deep.equal({ 'api/all': false, v1: true, 'batch/v1beta1': true });
      expect(flagError(['--runtime-config=v1=maybe']).message)
        .to.equal('invalid value "v1=maybe" for --runtime-config: invalid value of v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
      expect(flagError(['--feature-gates=A=yes']).message)
        .to.equal('invalid value "A=yes" for --feature-gates: invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
    });

    it('parses --feature-gates into a map, merging repeats, and requires values', () => {
      expect(parseFlags(['--feature-gates=A=true,B=false', '--feature-gates', 'B=true,C=0']).featureGates)
        .to.deep.equal({ A: true, B: true, C: false });
      expect(flagError(['--feature-gates=A']).message)
        .to.equal('invalid value "A" for --feature-gates: missing bool value for A');
      expect(flagError(['--feature-gates==true']).code).to.equal('InvalidValue');
    });

    it('rejects a plugin both enabled and disabled', () => {
      const err = flagError(['--enable-admission-plugins=AlwaysPullImages,PodNodeSelector', '--disable-admission-plugins=PodNodeSelector']);
      expect(err.code).to.equal('IncompatibleFlags');
      expect(err.message).to.equal('[PodNodeSelector] in enable-admission-plugins and disable-admission-plugins overlapped');
    });

    it('defaults the CSR signing duration to a year and wants both signing files or neither', () => {
      expect(parseFlags([]).clusterSigningDurationMs).to.equal(365 * 24 * 3_600_000);
      expect(parseFlags(['--cluster-signing-duration=48h']).clusterSigningDurationMs).to.equal(48 * 3_600_000);
      expect(flagError(['--cluster-signing-cert-file=/tmp/ca.crt']).message)
        .to.equal('--cluster-signing-cert-file and --cluster-signing-key-file must be given together');
    });

    it('rejects an unknown admission plugin with kube-apiserver\'s line', () => {
      const err = flagError(['--enable-admission-plugins=AlwaysPullImages,Foo']);
      expect(err).to.include({ code: 'InvalidValue', message: 'enable-admission-plugins plugin "Foo" is unknown' });
      expect(flagError(['--disable-admission-plugins=Bar']).message).to.equal('disable-admission-plugins plugin "Bar" is unknown');
    });

    it('reads the admission configuration file and the toleration seconds of DefaultTolerationSeconds', () => {
      expect(parseFlags([])).to.deep.include({
        admissionControlConfigFile: '', defaultNotReadyTolerationSeconds: 300, defaultUnreachableTolerationSeconds: 300,
      });
      expect(parseFlags(['--admission-control-config-file=/etc/admission.yaml', '--default-not-ready-toleration-seconds=60',
        '--default-unreachable-toleration-seconds=0'])).to.deep.include({
        admissionControlConfigFile: '/etc/admission.yaml', defaultNotReadyTolerationSeconds: 60, defaultUnreachableTolerationSeconds: 0,
      });
      expect(flagError(['--default-not-ready-toleration-seconds=-1']).code).to.equal('InvalidValue');
    });
  });

  describe('authentication flags', () => {
    it('has the defaults of kube-apiserver (and ours where it has none)', () => {
      const c = parseFlags([]);
      expect(c).to.deep.include({
        serviceAccountIssuer: [], serviceAccountKeyFile: [], serviceAccountLookup: true, serviceAccountMaxTokenExpirationMs: 0,
        oidcUsernameClaim: 'sub', oidcUsernamePrefix: undefined, oidcSigningAlgs: ['RS256'], oidcRequiredClaim: {},
        authenticationTokenWebhookVersion: 'v1beta1', authenticationTokenWebhookCacheTtlMs: 120_000, controllers: ['*'],
      });
    });

    it('repeats issuers and key files one value per use, commas kept', () => {
      const c = parseFlags(['--service-account-issuer=https://a', '--service-account-issuer', 'https://b', '--service-account-key-file=/k,1.pem']);
      expect(c.serviceAccountIssuer).to.deep.equal(['https://a', 'https://b']);
      expect(c.serviceAccountKeyFile).to.deep.equal(['/k,1.pem']);
      expect(flagError(['--service-account-issuer=']).message).to.contain('must not be empty');
    });

    it('tells an unset --oidc-username-prefix from an empty one, and reads required claims as key=value', () => {
      const base = ['--oidc-issuer-url=https://idp.example', '--oidc-client-id=k'];
      expect(parseFlags([...base, '--oidc-username-prefix=']).oidcUsernamePrefix).to.equal('');
      expect(parseFlags([...base, '--oidc-required-claim=a=1,b=x=y', '--oidc-required-claim=c=3']).oidcRequiredClaim)
        .to.deep.equal({ a: '1', b: 'x=y', c: '3' });
      expect(flagError(['--oidc-required-claim=novalue']).message).to.contain('must be formatted as key=value');
    });

    it('needs the OIDC issuer and client id together, an https issuer, and known algorithms', () => {
      expect(flagError(['--oidc-issuer-url=https://idp.example']).code).to.equal('IncompatibleFlags');
      expect(flagError(['--oidc-issuer-url=http://idp.example', '--oidc-client-id=k']).message).to.contain('must be an https URL');
      expect(flagError(['--oidc-signing-algs=HS256']).code).to.equal('InvalidValue');
    });

    it('trusts request headers only with their CA, and needs a username header with it', () => {
      expect(flagError(['--requestheader-username-headers=X-Remote-User']).flag).to.equal('requestheader-client-ca-file');
      expect(flagError(['--requestheader-client-ca-file=/ca.pem']).flag).to.equal('requestheader-username-headers');
      expect(parseFlags(['--requestheader-client-ca-file=/ca.pem', '--requestheader-username-headers=X-Remote-User']).requestheaderUsernameHeaders)
        .to.deep.equal(['X-Remote-User']);
    });

    it('takes the webhook version v1 or v1beta1 only', () => {
      expect(parseFlags(['--authentication-token-webhook-version=v1']).authenticationTokenWebhookVersion).to.equal('v1');
      expect(flagError(['--authentication-token-webhook-version=v2']).code).to.equal('InvalidValue');
    });

    it('knows the controllers by kube-controller-manager\'s names', () => {
      expect(parseFlags(['--controllers=*,-serviceaccount']).controllers).to.deep.equal(['*', '-serviceaccount']);
      expect(flagError(['--controllers=*,-nosuch']).message).to.contain('"nosuch" is not in the list of known controllers');
    });
  });

  describe('validation', () => {
    for (const bad of ['abc', '65536', '-1', '1.5', '']) {
      it(`rejects --secure-port=${JSON.stringify(bad)}`, () => {
        const err = flagError([`--secure-port=${bad}`]);
        expect(err.code).to.equal('InvalidValue');
        expect(err.flag).to.equal('secure-port');
        expect(err.message).to.equal(`invalid value ${JSON.stringify(bad)} for --secure-port: must be an integer between 0 and 65535`);
      });
    }

    it('requires --tls-cert-file and --tls-private-key-file together', () => {
      expect(flagError(['--tls-cert-file=a.crt']).message)
        .to.equal('--tls-cert-file and --tls-private-key-file must be given together');
      expect(flagError(['--tls-private-key-file=a.key']).code).to.equal('IncompatibleFlags');
      expect(parseFlags(['--tls-cert-file=a.crt', '--tls-private-key-file=a.key']))
        .to.include({ tlsCertFile: 'a.crt', tlsPrivateKeyFile: 'a.key' });
    });

    it('requires --proxy-client-cert-file and --proxy-client-key-file together', () => {
      const err = flagError(['--proxy-client-key-file=p.key']);
      expect(err.message).to.equal('--proxy-client-cert-file and --proxy-client-key-file must be given together');
      expect(err.flag).to.equal('proxy-client-cert-file');
      expect(parseFlags(['--proxy-client-cert-file=p.crt', '--proxy-client-key-file=p.key']))
        .to.include({ proxyClientCertFile: 'p.crt', proxyClientKeyFile: 'p.key' });
    });

    it('takes --allow-privileged, true unless given false (kube-apiserver\'s start scripts give it)', () => {
      expect(parseFlags([]).allowPrivileged).to.equal(true);
      expect(parseFlags(['--allow-privileged=false']).allowPrivileged).to.equal(false);
      expect(parseFlags(['--allow-privileged']).allowPrivileged).to.equal(true);
    });

    it('requires --etcd-certfile and --etcd-keyfile together', () => {
      expect(flagError(['--etcd-keyfile=e.key']).code).to.equal('IncompatibleFlags');
    });

    it('rejects an unknown flavor', () => {
      expect(flagError(['--flavor=openshift']).message)
        .to.equal('invalid value "openshift" for --flavor: must be one of orch, kubernetes');
    });

    it('accepts http and https etcd URLs and rejects others', () => {
      expect(parseFlags(['--etcd-servers=http://127.0.0.1:2379,https://etcd-2:2379']).etcdServers)
        .to.deep.equal(['http://127.0.0.1:2379', 'https://etcd-2:2379']);
      expect(flagError(['--etcd-servers=http://127.0.0.1:2379,ftp://x']).message)
        .to.equal('invalid value "http://127.0.0.1:2379,ftp://x" for --etcd-servers: "ftp://x" is not an http or https URL');
      expect(flagError(['--etcd-servers=localhost:2379']).code).to.equal('InvalidValue');
      expect(flagError(['--etcd-servers=not a url']).code).to.equal('InvalidValue');
    });

    it('requires --etcd-prefix to start with /', () => {
      expect(parseFlags(['--etcd-prefix=/orch']).etcdPrefix).to.equal('/orch');
      expect(flagError(['--etcd-prefix=registry']).message)
        .to.equal('invalid value "registry" for --etcd-prefix: must start with "/"');
    });

    it('serves --insecure-http-port on loopback addresses only, and not by default', () => {
      expect(parseFlags([])).to.include({ insecureHttpPort: 0, insecureHttpBindAddress: '127.0.0.1' });
      expect(parseFlags(['--insecure-http-port=8080', '--insecure-http-bind-address=127.0.0.2'])).to.include({ insecureHttpPort: 8080, insecureHttpBindAddress: '127.0.0.2' });
      expect(parseFlags(['--insecure-http-bind-address=::1']).insecureHttpBindAddress).to.equal('::1');
      for (const address of ['0.0.0.0', '::', '10.0.0.1', 'localhost', '']) {
        expect(flagError([`--insecure-http-bind-address=${address}`]).message)
          .to.equal(`invalid value "${address}" for --insecure-http-bind-address: must be a loopback IP address (127.0.0.0/8 or ::1)`);
      }
    });

    it('requires IP addresses for --bind-address and --advertise-address', () => {
      expect(parseFlags(['--bind-address=::', '--advertise-address=10.0.0.1'])).to.include({ bindAddress: '::', advertiseAddress: '10.0.0.1' });
      expect(flagError(['--bind-address=localhost']).message)
        .to.equal('invalid value "localhost" for --bind-address: must be an IP address');
      expect(flagError(['--bind-address=']).code).to.equal('InvalidValue');
      expect(flagError(['--advertise-address=host']).code).to.equal('InvalidValue');
    });

    it('bounds --goaway-chance, --v, --log-level and --storage-media-type', () => {
      expect(parseFlags(['--goaway-chance=0.01']).goawayChance).to.equal(0.01);
      expect(flagError(['--goaway-chance=0.5']).message)
        .to.equal('invalid value "0.5" for --goaway-chance: must be a number between 0 and 0.02');
      expect(flagError(['--v=11']).code).to.equal('InvalidValue');
      expect(parseFlags(['--log-level=debug']).logLevel).to.equal('debug');
      expect(flagError(['--log-level=trace']).code).to.equal('InvalidValue');
      expect(parseFlags(['--storage-media-type=application/vnd.kubernetes.protobuf']).storageMediaType)
        .to.equal('application/vnd.kubernetes.protobuf');
      expect(flagError(['--storage-media-type=text/plain']).code).to.equal('InvalidValue');
    });

    it('keeps every message on one line', () => {
      expect(flagError(['--flavor=a\nb']).message).to.not.contain('\n');
      expect(flagError(['--fo\no']).message).to.equal('unknown flag: --"fo\\no"');
      expect(flagError(['x\ny']).message).to.not.contain('\n');
    });
  });
});

describe('helpText', () => {
  it('has one line per flag, with non-empty defaults', () => {
    const text = helpText();
    const flagNames = text.split('\n').map((l) => /^ {2}(?:-\w, | {4})--([a-z0-9-]+)/.exec(l)?.[1]).filter(Boolean);
    expect([...flagNames].sort()).to.deep.equal(FLAGS.map((f) => f.name).sort());
    expect(text).to.match(/--secure-port int +.*\(default 6443\)/);
    expect(text).to.match(/--etcd-compaction-interval duration +.*\(default 5m0s\)/);
    expect(text).to.match(/--request-timeout duration +.*\(default 1m0s\)/);
    expect(text).to.match(/--authorization-mode strings +.*\(default RBAC\)/);
    expect(text).to.match(/-v, --v int/);
  });
});

describe('parseCommandLine', () => {
  it('names the flags given, by their long names, whatever their values', () => {
    const { config, given } = parseCommandLine(['-v', '0', '--profiling=true', '--secure-port=1', '--secure-port=2']);
    expect([...given].sort()).to.deep.equal(['profiling', 'secure-port', 'v']);
    expect(config).to.include({ v: 0, profiling: true, securePort: 2 });
    expect(parseCommandLine([]).given.size).to.equal(0);
  });
});

describe('flagsWithoutEffect', () => {
  const marked = FLAGS.filter((f) => f.withoutEffect).map((f) => f.name);

  it('names every flag accepted without effect that was given, at its default value too, in help order', () => {
    expect(flagsWithoutEffect(parseCommandLine(['--profiling', '--v=0', '--enable-priority-and-fairness=true']).given))
      .to.deep.equal(['--profiling']);
    expect(flagsWithoutEffect(parseCommandLine(['-v', '3', '--cors-allowed-origins=.*', '--vmodule=x=2']).given)).to.deep.equal(['--cors-allowed-origins', '--vmodule']);
    expect(flagsWithoutEffect(parseCommandLine(['--secure-port=1', '--max-requests-inflight=10']).given)).to.deep.equal([]);
  });

  it('are kube-apiserver flags not built here, each saying so in its help', () => {
    expect(marked).to.include.members(['cors-allowed-origins', 'profiling', 'cloud-provider', 'vmodule']);
    expect(marked).not.to.include.members(['cert-dir', 'emulated-version', 'secure-port', 'v', 'logging-format']);
    for (const f of FLAGS.filter((x) => x.withoutEffect)) expect(f.help, f.name).to.match(/without effect here/i);
    for (const f of FLAGS.filter((x) => !x.withoutEffect)) expect(f.help, f.name).to.not.match(/without effect/i);
  });

  it('are the list docs/flags.md gives under "Accepted without effect"', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../../../docs/flags.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Accepted without effect'));
    const listed = [...section.slice(0, section.indexOf('\n## ', 3)).matchAll(/^- `(--?[a-z0-9-]+)`/gm)].map((m) => m[1].replace(/^-+/, ''));
    expect([...new Set(listed)].sort()).to.deep.equal([...marked].sort());
  });
});

/**
 * kube-apiserver 1.32's command line (test/data/kube-apiserver-1.32-flags.txt, its flags as --help
 * groups them) against this server's flag table: every flag known, in the same --help section,
 * with kube's value type where it matters to parsing (bool or not); removed flags refused with
 * pflag's message unless --emulated-version names a release that had them; --help grouped as kube's.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FLAGS, FlagError, flagsWithoutEffect, helpSections, helpText, parseCommandLine, withoutEffectReasons } from '../../../lib/server/flags';
import { KUBE_SECTION_OF, REMOVED_FLAGS } from '../../../lib/server/kube-flags';

/** Added by issue 43 (the aggregation layer, lib/aggregation/flags.ts); the lead merges both. */
const ADDED_BY_ISSUE_43 = ['enable-aggregator-routing', 'aggregator-reject-forwarding-redirect'];

interface KubeFlag { name: string; shorthand?: string; type: string; section: string; hidden: boolean }

/** The data file: "<Section> flags:" headers, then `  [-x, ]--name [type]  (default ...)` lines. */
function kubeFlags(): KubeFlag[] {
  const text = readFileSync(path.resolve(__dirname, '../../../../test/data/kube-apiserver-1.32-flags.txt'), 'utf8');
  const out: KubeFlag[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const header = /^(.+) flags:$/.exec(line) ?? /^(Hidden):$/.exec(line);
    if (header) { section = header[1]; continue; }
    const m = /^ {2}(?:-(\w), | {4})--([a-z0-9-]+)(?: (\S+))?(?: {2}\(default .*\))?$/.exec(line);
    if (!m) throw new Error(`unreadable line in the flag list: ${JSON.stringify(line)}`);
    out.push({ shorthand: m[1], name: m[2], type: m[3] ?? 'bool', section, hidden: section === 'Hidden' });
  }
  return out;
}

const parses = (args: string[]) => parseCommandLine(args).config;

describe('kube-apiserver 1.32\'s flags', () => {
  const kube = kubeFlags();
  const byName = new Map(FLAGS.map((f) => [f.name, f]));

  it('are read from the committed list: 16 sections, about 170 flags', () => {
    expect(new Set(kube.map((f) => f.section)).size).to.equal(17); // 16 sections and the hidden ones
    expect(kube.length).to.be.greaterThan(165);
    expect(kube.map((f) => f.name)).to.include.members(['secure-port', 'cert-dir', 'emulated-version', 'cloud-provider', 'help', 'version']);
  });

  it('are each known to the server\'s flag table (but the two issue 43 adds)', () => {
    const unknown = kube.map((f) => f.name).filter((n) => !byName.has(n) && !ADDED_BY_ISSUE_43.includes(n));
    expect(unknown).to.deep.equal([]);
  });

  it('are each printed by --help in kube-apiserver\'s section', () => {
    for (const f of kube.filter((x) => !x.hidden)) expect(KUBE_SECTION_OF.get(f.name), f.name).to.equal(f.section);
    // ... and no flag is placed in a section kube-apiserver does not print it in.
    const listed = new Set(kube.map((f) => f.name));
    for (const name of KUBE_SECTION_OF.keys()) expect(listed.has(name), name).to.equal(true);
  });

  it('take a value exactly when kube\'s do (a bare boolean never swallows the next argument)', () => {
    for (const f of kube) {
      const mine = byName.get(f.name);
      if (!mine) continue;
      const kubeBool = f.type === 'bool' || f.type === 'version[=true]';
      expect(Boolean(mine.kind.isBool), f.name).to.equal(kubeBool);
      if (f.shorthand) expect(mine.shorthand, f.name).to.equal(f.shorthand);
    }
  });

  it('all start together, each with a value of its type, as a kubeadm or systemd command line gives them', () => {
    const sample: Record<string, string> = {
      bool: 'false', int: '1', uint: '1', float: '0', float32: '1', duration: '1s', ip: '127.0.0.1', Level: '2', quantity: '0',
      mapStringString: 'a=b', stringToString: 'a=b', mapStringBool: 'v1=true', portRange: '30000-32767', 'pattern=N,...': 'x=1',
    };
    // Values whose meaning is checked here, where an empty string is refused as kube-apiserver refuses it.
    const fixed: Record<string, string> = {
      'etcd-prefix': '/registry', 'storage-media-type': 'application/json', 'audit-log-format': 'json', 'audit-log-mode': 'blocking',
      'authentication-token-webhook-version': 'v1', 'authorization-webhook-version': 'v1', 'oidc-username-claim': 'sub',
      'service-account-issuer': 'https://kubernetes.default.svc', 'authorization-mode': 'RBAC', 'endpoint-reconciler-type': 'lease',
      'kubelet-preferred-address-types': 'InternalIP', 'emulated-version': '1.32', 'runtime-config': 'api/all=true', 'service-cluster-ip-range': '10.96.0.0/12', 'logging-format': 'text',
    };
    const args = kube.filter((f) => byName.has(f.name) && !['help', 'version'].includes(f.name))
      .map((f) => `--${f.name}=${fixed[f.name] ?? sample[f.type] ?? ''}`);
    expect(args.length).to.be.greaterThan(160);
    expect(() => parseCommandLine(args)).to.not.throw();
  });
});

describe('flags accepted without effect', () => {
  it('give one reason each, for the one warning the start logs', () => {
    const given = parseCommandLine(['--cloud-provider=external', '--vmodule=x=2', '--profiling', '--secure-port=1']).given;
    expect(flagsWithoutEffect(given)).to.deep.equal(['--profiling', '--vmodule', '--cloud-provider']);
    const why = withoutEffectReasons(given);
    expect(Object.keys(why)).to.deep.equal(['--profiling', '--vmodule', '--cloud-provider']);
    expect(why['--cloud-provider']).to.equal('no cloud provider is integrated here.');
    for (const text of Object.values(why)) expect(text).to.not.match(/Accepted so that|^Without effect/);
  });

  it('still refuse a value of the wrong kind, as kube-apiserver does', () => {
    expect(() => parseCommandLine(['--apiserver-count=many'])).to.throw(FlagError, /invalid value "many" for --apiserver-count/);
    expect(() => parseCommandLine(['--delete-collection-workers=-1'])).to.throw(FlagError, /--delete-collection-workers/);
    expect(() => parseCommandLine(['--storage-initialization-timeout=5'])).to.throw(FlagError, /--storage-initialization-timeout/);
    expect(parses(['--apiserver-count=3', '--cloud-provider', 'external']).kubeFlagsWithoutEffect).to.deep.equal({ 'apiserver-count': 3, 'cloud-provider': 'external' });
  });
});

describe('flags 1.32 removed', () => {
  it('are refused with pflag\'s "unknown flag" line', () => {
    for (const args of [['--insecure-port=0'], ['--insecure-port', '0'], ['--address=0.0.0.0'], ['--logtostderr'], ['--port=8080']]) {
      expect(() => parseCommandLine(args), args.join(' ')).to.throw(FlagError, `unknown flag: ${args[0].split('=')[0]}`);
    }
    expect(() => parseCommandLine(['--no-such-flag'])).to.throw(FlagError, 'unknown flag: --no-such-flag');
  });

  it('are accepted without effect under --emulated-version of a release that had them, in any order', () => {
    const c = parseCommandLine(['--insecure-port=0', '--logtostderr', '--emulated-version=1.20', '--insecure-bind-address', '127.0.0.1']);
    expect(c.config.emulatedVersion).to.equal('1.20');
    expect(c.config.kubeFlagsWithoutEffect).to.deep.equal({ 'insecure-port': '0', logtostderr: 'true', 'insecure-bind-address': '127.0.0.1' });
    expect(flagsWithoutEffect(c.given)).to.deep.equal(['--insecure-bind-address', '--insecure-port', '--logtostderr']);
    expect(withoutEffectReasons(c.given)['--insecure-port']).to.match(/removed after kube-apiserver 1\.23/);
    // 1.24 removed the insecure port; 1.26 klog's flags.
    expect(() => parseCommandLine(['--emulated-version=1.24', '--insecure-port=0'])).to.throw(FlagError, 'unknown flag: --insecure-port');
    expect(parses(['--emulated-version=kube=1.25', '--logtostderr=false']).kubeFlagsWithoutEffect).to.deep.equal({ logtostderr: 'false' });
    expect(() => parseCommandLine(['--emulated-version=1.26', '--logtostderr'])).to.throw(FlagError, 'unknown flag: --logtostderr');
  });
});

describe('--emulated-version', () => {
  it('takes 1.N or kube=1.N, N from 20 to 32, and keeps it', () => {
    expect(parses([]).emulatedVersion).to.equal('');
    expect(parses(['--emulated-version=1.31']).emulatedVersion).to.equal('1.31');
    expect(parses(['--emulated-version=kube=1.20']).emulatedVersion).to.equal('1.20');
    expect(parses(['--emulated-version', '1.32']).emulatedVersion).to.equal('1.32');
  });

  it('refuses other releases, components and spellings with one line', () => {
    expect(() => parseCommandLine(['--emulated-version=1.19'])).to.throw(FlagError, 'invalid value "1.19" for --emulated-version: emulation version 1.19 is not between [1.20, 1.32]');
    expect(() => parseCommandLine(['--emulated-version=1.33'])).to.throw(FlagError, /not between \[1\.20, 1\.32\]/);
    expect(() => parseCommandLine(['--emulated-version=wardle=1.2'])).to.throw(FlagError, /component not registered: wardle/);
    expect(() => parseCommandLine(['--emulated-version=latest'])).to.throw(FlagError, /could not parse "latest" as version/);
  });
});

describe('--cert-dir and --version', () => {
  it('--cert-dir is kept (the serving pair is read or issued there at start)', () => {
    expect(parses([]).certDir).to.equal('');
    expect(parses(['--cert-dir=/tmp/x']).certDir).to.equal('/tmp/x');
  });

  it('--version is a boolean that also takes raw', () => {
    expect(parses([]).version).to.equal('');
    expect(parses(['--version']).version).to.equal('true');
    expect(parses(['--version=raw']).version).to.equal('raw');
    expect(parses(['--version=false']).version).to.equal('');
    expect(() => parseCommandLine(['--version=yes'])).to.throw(FlagError, /--version/);
  });
});

describe('--help', () => {
  const text = helpText();

  it('groups the flags in kube-apiserver\'s sections, in its order, then this server\'s own', () => {
    const titles = text.split('\n').filter((l) => /^[A-Za-z][\w -]* flags:$/.test(l));
    expect(titles.slice(0, 5)).to.deep.equal(['Generic flags:', 'Etcd flags:', 'Secure serving flags:', 'Auditing flags:', 'Features flags:']);
    expect(titles.at(-2)).to.equal('Global flags:');
    expect(titles.at(-1)).to.equal('orch-apiserver flags:');
    const own = helpSections().at(-1)!.flags.map((f) => f.name);
    expect(own).to.include.members(['data-dir', 'flavor', 'workers', 'log-level']);
    expect(own).to.not.include('secure-port');
  });

  it('prints each section\'s flags sorted by name, with types and defaults', () => {
    for (const s of helpSections().slice(0, -1)) {
      const names = s.flags.map((f) => f.name);
      expect(names, s.title).to.deep.equal([...names].sort());
    }
    expect(text).to.match(/Secure serving flags:\n\n {6}--bind-address string/);
    expect(text).to.match(/--cert-dir string +The directory where the TLS certs are located/);
    expect(text).to.match(/--apiserver-count int +Without effect here: .*\(default 1\)/);
    expect(text).to.match(/--version version\[=true\]/);
  });
});

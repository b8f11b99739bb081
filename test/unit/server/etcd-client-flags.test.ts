/**
 * The etcd keepalive flags (package A of issue 19): Go durations as every duration flag, defaults
 * of 1 s and 1 s, a keepalive timeout that must be positive, and the help text.
 */
import { expect } from 'chai';
import { FlagError, helpText, parseFlags } from '../../../lib/server/flags';

function flagError(args: string[]): FlagError {
  try {
    parseFlags(args);
  } catch (err) {
    expect(err).to.be.instanceOf(FlagError);
    return err as FlagError;
  }
  throw new Error(`expected ${args.join(' ')} to be refused`);
}

describe('--etcd-keepalive-interval / --etcd-keepalive-timeout', () => {
  it('default to 1 s each', () => {
    expect(parseFlags([])).to.include({ etcdKeepaliveIntervalMs: 1_000, etcdKeepaliveTimeoutMs: 1_000 });
  });

  it('take Go durations; an interval of 0 turns the keepalive off', () => {
    expect(parseFlags(['--etcd-keepalive-interval=5s', '--etcd-keepalive-timeout', '1500ms']))
      .to.include({ etcdKeepaliveIntervalMs: 5_000, etcdKeepaliveTimeoutMs: 1_500 });
    expect(parseFlags(['--etcd-keepalive-interval=0'])).to.include({ etcdKeepaliveIntervalMs: 0 });
  });

  it('refuse bad durations, a negative interval and a timeout of 0 with the flag name', () => {
    expect(flagError(['--etcd-keepalive-interval=1x']).message)
      .to.equal('invalid value "1x" for --etcd-keepalive-interval: unknown unit "x" in duration "1x"');
    expect(flagError(['--etcd-keepalive-interval=-1s']).message)
      .to.equal('invalid value "-1s" for --etcd-keepalive-interval: must not be negative');
    expect(flagError(['--etcd-keepalive-timeout=0']).message)
      .to.equal('invalid value "0" for --etcd-keepalive-timeout: must be greater than 0');
  });

  it('are in the help text with their defaults', () => {
    const text = helpText();
    expect(text).to.match(/--etcd-keepalive-interval duration +.*\(default 1s\)/);
    expect(text).to.match(/--etcd-keepalive-timeout duration +.*\(default 1s\)/);
  });
});

describe('--etcd-healthcheck-timeout / --etcd-readycheck-timeout', () => {
  it('default to 2 s each, as kube-apiserver', () => {
    expect(parseFlags([])).to.include({ etcdHealthcheckTimeoutMs: 2_000, etcdReadycheckTimeoutMs: 2_000 });
  });

  it('take Go durations and refuse 0, a negative or a malformed one with the flag name', () => {
    expect(parseFlags(['--etcd-healthcheck-timeout=5s', '--etcd-readycheck-timeout', '500ms']))
      .to.include({ etcdHealthcheckTimeoutMs: 5_000, etcdReadycheckTimeoutMs: 500 });
    expect(flagError(['--etcd-healthcheck-timeout=0']).message)
      .to.equal('invalid value "0" for --etcd-healthcheck-timeout: must be greater than 0');
    expect(flagError(['--etcd-readycheck-timeout=-2s']).message)
      .to.equal('invalid value "-2s" for --etcd-readycheck-timeout: must not be negative');
    expect(flagError(['--etcd-readycheck-timeout=2']).message).to.match(/^invalid value "2" for --etcd-readycheck-timeout: /);
  });

  it('are in the help text with their defaults', () => {
    expect(helpText()).to.match(/--etcd-healthcheck-timeout duration +.*\(default 2s\)/)
      .and.to.match(/--etcd-readycheck-timeout duration +.*\(default 2s\)/);
  });
});

describe('--event-ttl', () => {
  it('defaults to 1 h, takes a Go duration, refuses a negative one, and is in the help text', () => {
    expect(parseFlags([])).to.include({ eventTtlMs: 3_600_000 });
    expect(parseFlags(['--event-ttl=90m'])).to.include({ eventTtlMs: 5_400_000 });
    expect(parseFlags(['--event-ttl=0'])).to.include({ eventTtlMs: 0 });
    expect(flagError(['--event-ttl=-1s']).message).to.equal('invalid value "-1s" for --event-ttl: must not be negative');
    expect(helpText()).to.match(/--event-ttl duration +.*\(default 1h0m0s\)/);
  });
});

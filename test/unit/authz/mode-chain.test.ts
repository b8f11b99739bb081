/**
 * The --authorization-mode chain built from the flags (buildAuthorization) with AlwaysAllow,
 * AlwaysDeny, ABAC and Webhook modes: order decides, the first allow or deny ends the chain, no
 * opinion passes on, reasons join, a failed webhook is an error only when no later mode allows,
 * system:masters is allowed before any mode, decisions stay synchronous until a mode must call,
 * and SelfSubjectRulesReview's rules are incomplete with a mode that cannot list them.
 * The flag rules pairing each mode with its file are here too.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../../../lib/server/flags';
import { flavors } from '../../../lib/naming';
import { buildAuthorization } from '../../../lib/authz/build';
import { AuthorizationAttributes } from '../../../lib/authz/attributes';
import { AuthorizationResult, Authorizer } from '../../../lib/authz/authorizer';
import { ModeChain } from '../../../lib/authz/mode-chain';
import { AbacAuthorizer } from '../../../lib/authz/abac-authorizer';
import { parsePolicyFile } from '../../../lib/authz/abac-policy';
import { alwaysAllowMode, alwaysDenyMode } from '../../../lib/authz/always';
import { UserInfo } from '../../../lib/meta/user';

const ABAC_LINE = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const admin: UserInfo = { name: 'root', groups: ['system:masters', 'system:authenticated'] };
const listPods = (user: UserInfo): AuthorizationAttributes => ({
  user, verb: 'list', isResourceRequest: true, path: '/api/v1/namespaces/team/pods', httpMethod: 'GET',
  apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', namespace: 'team', name: '',
});

/** The chain's answer, which must have come without a promise. */
function sync(r: AuthorizationResult | Promise<AuthorizationResult>): AuthorizationResult {
  if (r instanceof Promise) throw new Error('expected a synchronous decision');
  return r;
}

/** A mode that records being asked and answers `result`, synchronously or not. */
function recorder(result: AuthorizationResult, asynchronous = false): Authorizer & { calls: number } {
  const m = {
    calls: 0,
    authorize: () => { m.calls++; return asynchronous ? Promise.resolve(result) : result; },
  };
  return m;
}

describe('mode chain', () => {
  describe('order and decisions', () => {
    it('AlwaysDeny alone refuses with its reason, as no opinion', () => {
      expect(new ModeChain([alwaysDenyMode]).authorize(listPods(alice)))
        .to.deep.equal({ decision: 'no-opinion', reason: 'Everything is forbidden.' });
    });

    it('system:masters is allowed before any mode is asked, even AlwaysDeny', () => {
      const asked = recorder({ decision: 'deny', reason: 'no' });
      expect(sync(new ModeChain([{ mode: 'Webhook', authorizer: asked }, alwaysDenyMode]).authorize(listPods(admin))).decision).to.equal('allow');
      expect(asked.calls).to.equal(0);
    });

    it('AlwaysDeny then AlwaysAllow allows (AlwaysDeny has no opinion); the other order too', () => {
      expect(new ModeChain([alwaysDenyMode, alwaysAllowMode]).authorize(listPods(alice))).to.deep.equal({ decision: 'allow', reason: '' });
      expect(new ModeChain([alwaysAllowMode, alwaysDenyMode]).authorize(listPods(alice))).to.deep.equal({ decision: 'allow', reason: '' });
    });

    it('a deny ends the chain: later modes are not asked', () => {
      const later = recorder({ decision: 'allow', reason: '' });
      const r = new ModeChain([
        { mode: 'Webhook', authorizer: recorder({ decision: 'deny', reason: 'frozen' }) }, { mode: 'ABAC', authorizer: later },
      ]).authorize(listPods(alice));
      expect(r).to.deep.equal({ decision: 'deny', reason: 'frozen' });
      expect(later.calls).to.equal(0);
    });

    it('an allow ends the chain too', () => {
      const later = recorder({ decision: 'deny', reason: 'x' });
      const abac = new AbacAuthorizer(parsePolicyFile(ABAC_LINE({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' })));
      expect(sync(new ModeChain([{ mode: 'ABAC', authorizer: abac }, { mode: 'Webhook', authorizer: later }]).authorize(listPods(alice))).decision).to.equal('allow');
      expect(later.calls).to.equal(0);
    });

    it('no opinion from every mode joins their reasons, one per line', () => {
      const abac = new AbacAuthorizer([]);
      const r = new ModeChain([alwaysDenyMode, { mode: 'ABAC', authorizer: abac }, { mode: 'RBAC', authorizer: recorder({ decision: 'no-opinion', reason: '' }) }])
        .authorize(listPods(alice));
      expect(r).to.deep.equal({ decision: 'no-opinion', reason: 'Everything is forbidden.\nNo policy matched.' });
    });

    it('a failed mode is an error only when no later mode allows', async () => {
      const failed = { decision: 'no-opinion', reason: '', error: 'authorization webhook https://x/: unreachable' } as const;
      const thenNothing = await new ModeChain([{ mode: 'Webhook', authorizer: recorder(failed, true) }, alwaysDenyMode]).authorize(listPods(alice));
      expect(thenNothing).to.deep.equal({ decision: 'no-opinion', reason: 'Everything is forbidden.', error: failed.error });
      const thenAllow = await new ModeChain([{ mode: 'Webhook', authorizer: recorder(failed, true) }, alwaysAllowMode]).authorize(listPods(alice));
      expect(thenAllow).to.deep.equal({ decision: 'allow', reason: '' });
    });

    it('stays synchronous while the modes answer synchronously; a promise once one calls', async () => {
      const sync = new ModeChain([{ mode: 'ABAC', authorizer: new AbacAuthorizer([]) }, alwaysAllowMode]).authorize(listPods(alice));
      expect(sync).not.to.be.instanceOf(Promise);
      const calling = recorder({ decision: 'no-opinion', reason: 'not mine' }, true);
      const r = new ModeChain([{ mode: 'Webhook', authorizer: calling }, alwaysAllowMode]).authorize(listPods(alice));
      expect(r).to.be.instanceOf(Promise);
      expect(await r).to.deep.equal({ decision: 'allow', reason: '' });
    });
  });

  describe('built from the flags', () => {
    let dir: string;
    let policyFile: string;
    let kubeconfig: string;
    before(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'mode-chain-'));
      policyFile = path.join(dir, 'policy.jsonl');
      writeFileSync(policyFile, `${ABAC_LINE({ user: 'alice', readonly: true, namespace: 'team', resource: 'pods', apiGroup: '' })}\n`);
      kubeconfig = path.join(dir, 'webhook.kubeconfig');
      writeFileSync(kubeconfig, JSON.stringify({
        clusters: [{ name: 'authz', cluster: { server: 'https://127.0.0.1:1/authorize', 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'apiserver', user: { token: 'webhook-secret-token' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'authz', user: 'apiserver' } }], 'current-context': 'ctx',
      }));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    const build = (flags: string[]) => buildAuthorization({ config: parseFlags(flags), naming: flavors.orch, stores: new Map(), warn: () => undefined });

    it('ABAC,Webhook: ABAC decides first; the webhook (unreachable) is asked after, and its failure is the error', async () => {
      const a = build(['--authorization-mode=ABAC,Webhook', `--authorization-policy-file=${policyFile}`, `--authorization-webhook-config-file=${kubeconfig}`]);
      try {
        expect(a.chain.modes.map((m) => m.mode)).to.deep.equal(['ABAC', 'Webhook']);
        expect(a.chain.authorize(listPods(alice))).to.deep.equal({ decision: 'allow', reason: '' });
        const r = await a.chain.authorize({ ...listPods(alice), verb: 'create' });
        expect(r.decision).to.equal('no-opinion');
        expect(r.reason).to.equal('No policy matched.');
        expect(r.error).to.match(/^authorization webhook https:\/\/127.0.0.1:1\/authorize: the call failed: /);
        expect(r.error).not.to.include('webhook-secret-token');
      } finally {
        await a.stop();
      }
    });

    it('rules: ABAC\'s are listed; with Webhook in the chain they are incomplete, with kube\'s evaluation error', async () => {
      const abacOnly = build(['--authorization-mode=ABAC', `--authorization-policy-file=${policyFile}`]);
      expect(await abacOnly.chain.rulesFor(alice, 'team')).to.deep.equal({
        rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }], incomplete: false, errors: [],
      });
      const both = build(['--authorization-mode=ABAC,Webhook', `--authorization-policy-file=${policyFile}`, `--authorization-webhook-config-file=${kubeconfig}`]);
      expect(await both.chain.rulesFor(alice, 'team')).to.deep.equal({
        rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }],
        incomplete: true, errors: ['webhook authorizer does not support user rule resolution'],
      });
      await both.stop();
    });

    it('a bad policy file or webhook kubeconfig throws one line naming flag and file', () => {
      const bad = path.join(dir, 'bad.jsonl');
      writeFileSync(bad, `${ABAC_LINE({ user: 'a', nonResourcePath: '*' })}\n{"user": 1}\n`);
      expect(() => build(['--authorization-mode=ABAC', `--authorization-policy-file=${bad}`]))
        .to.throw(`--authorization-policy-file ${bad}: line 2: user must be a string`);
      const plain = path.join(dir, 'plain.kubeconfig');
      writeFileSync(plain, JSON.stringify({ clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:1/' } }] }));
      expect(() => build(['--authorization-mode=Webhook', `--authorization-webhook-config-file=${plain}`]))
        .to.throw(`--authorization-webhook-config-file ${plain}: cluster "c": server must be an https URL`);
    });

    describe('flag rules (as kube-apiserver)', () => {
      const flagError = (flags: string[]): string => {
        try { parseFlags(flags); } catch (err) { return (err as Error).message; }
        throw new Error('parsed');
      };
      it('Webhook needs its config file, and the file needs the mode', () => {
        expect(flagError(['--authorization-mode=RBAC,Webhook'])).to.equal('--authorization-mode Webhook needs --authorization-webhook-config-file');
        expect(flagError(['--authorization-mode=RBAC', '--authorization-webhook-config-file=/x'])).to.equal('--authorization-webhook-config-file needs Webhook in --authorization-mode');
      });
      it('ABAC needs its policy file, and the file needs the mode', () => {
        expect(flagError(['--authorization-mode=ABAC'])).to.equal('--authorization-mode ABAC needs --authorization-policy-file');
        expect(flagError(['--authorization-policy-file=/x'])).to.equal('--authorization-policy-file needs ABAC in --authorization-mode');
      });
      it('defaults and values of the webhook flags', () => {
        const d = parseFlags([]);
        expect([d.authorizationWebhookVersion, d.authorizationWebhookCacheAuthorizedTtlMs, d.authorizationWebhookCacheUnauthorizedTtlMs]).to.deep.equal(['v1beta1', 300_000, 30_000]);
        const c = parseFlags(['--authorization-mode=Webhook', '--authorization-webhook-config-file=/x', '--authorization-webhook-version=v1',
          '--authorization-webhook-cache-authorized-ttl=1m30s', '--authorization-webhook-cache-unauthorized-ttl=0']);
        expect([c.authorizationWebhookVersion, c.authorizationWebhookCacheAuthorizedTtlMs, c.authorizationWebhookCacheUnauthorizedTtlMs]).to.deep.equal(['v1', 90_000, 0]);
        expect(flagError(['--authorization-webhook-version=v2'])).to.match(/^invalid value "v2" for --authorization-webhook-version/);
      });
    });
  });
});

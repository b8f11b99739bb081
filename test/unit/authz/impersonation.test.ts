import { expect } from 'chai';
import type { Context } from 'koa';
import {
  ImpersonationRequest, impersonate, impersonationAttributes, impersonationHeaders, impersonationRequests,
} from '../../../lib/authz/impersonation';
import { authnRequestOf } from '../../../lib/authn/request';
import { AuthnRequest } from '../../../lib/authn/authenticator';
import { UserInfo } from '../../../lib/meta/user';
import { AuthorizationAttributes } from '../../../lib/authz/attributes';
import { Authorizer, allow, deny, noOpinion } from '../../../lib/authz/authorizer';
import { ModeChain } from '../../../lib/authz/mode-chain';

/** The mode chain with no mode: system:masters allowed, anyone else no opinion. */
const mastersOnly = new ModeChain([]);
import { ApiError } from '../../../lib/meta/api-errors';

const AUTHN_GROUP = 'authentication.orch.io';

/** A request with these header lines, as Node presents them (repeated lines joined in `headers`). */
function request(lines: [string, string][]): AuthnRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of lines) {
    const key = k.toLowerCase();
    headers[key] = headers[key] === undefined ? v : `${headers[key]}, ${v}`;
  }
  return authnRequestOf({ req: { headers, rawHeaders: lines.flat() } } as unknown as Context);
}

const admin: UserInfo = { name: 'orch-admin', groups: ['system:masters', 'system:authenticated'] };
const jane: UserInfo = { name: 'jane', groups: ['dev', 'system:authenticated'] };

/** An authorizer allowing everything, recording what it was asked. */
function recorder(decide: (a: AuthorizationAttributes) => ReturnType<typeof allow> = () => allow()): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return { asked, authorize: (a) => { asked.push(a); return decide(a); } };
}

async function as(lines: [string, string][], authorizer: Authorizer = recorder(), requestor = admin): Promise<UserInfo> {
  return impersonate(requestor, impersonationRequests(request(lines)), authorizer, AUTHN_GROUP);
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('not refused');
}

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('nothing thrown');
}

describe('impersonation', () => {
  describe('impersonationRequests (the headers)', () => {
    it('is empty without impersonation headers', () => {
      expect(impersonationRequests(request([['Authorization', 'Bearer x'], ['Accept', 'application/json']]))).to.deep.equal([]);
    });

    it('reads user, each group line, extras and uid, in that order', () => {
      const r = impersonationRequests(request([
        ['Impersonate-Uid', 'uid-7'], ['Impersonate-Group', 'g1'], ['Impersonate-User', 'alice'],
        ['impersonate-group', 'g2, with comma'], ['Impersonate-Extra-Scopes', 'view'], ['Impersonate-Extra-scopes', 'edit'],
      ]));
      expect(r).to.deep.equal([
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'g1' }, { kind: 'Group', name: 'g2, with comma' },
        { kind: 'UserExtra', key: 'scopes', value: 'view' }, { kind: 'UserExtra', key: 'scopes', value: 'edit' },
        { kind: 'UID', uid: 'uid-7' },
      ]);
    });

    it('lower-cases then percent-decodes extra keys; a key that does not decode is kept as sent', () => {
      const r = impersonationRequests(request([
        ['Impersonate-User', 'alice'],
        ['Impersonate-Extra-Example.com%2FReason', 'because'],
        ['Impersonate-Extra-Acme.Com%2fTeam', 'blue'],
        ['Impersonate-Extra-bad%zzKey', 'v'],
      ]));
      expect(r.slice(1)).to.deep.equal([
        { kind: 'UserExtra', key: 'example.com/reason', value: 'because' },
        { kind: 'UserExtra', key: 'acme.com/team', value: 'blue' },
        { kind: 'UserExtra', key: 'bad%zzkey', value: 'v' },
      ]);
    });

    it('reads a service-account user as the account (namespace and name)', () => {
      expect(impersonationRequests(request([['Impersonate-User', 'system:serviceaccount:team-a:builder']])))
        .to.deep.equal([{ kind: 'ServiceAccount', namespace: 'team-a', name: 'builder' }]);
      // Not a valid account name: an ordinary user.
      expect(impersonationRequests(request([['Impersonate-User', 'system:serviceaccount:team-a:b:c']])))
        .to.deep.equal([{ kind: 'User', name: 'system:serviceaccount:team-a:b:c' }]);
    });

    it('takes the first line of a repeated Impersonate-User or Impersonate-Uid, as Go\'s Header.Get', () => {
      expect(impersonationRequests(request([['Impersonate-User', 'alice'], ['Impersonate-User', 'mallory'], ['Impersonate-Uid', 'u1'], ['Impersonate-Uid', 'u2']])))
        .to.deep.equal([{ kind: 'User', name: 'alice' }, { kind: 'UID', uid: 'u1' }]);
    });

    it('refuses groups, extras or a uid without a user with 400 (an empty user is none)', () => {
      for (const lines of [
        [['Impersonate-Group', 'g1']], [['Impersonate-Extra-Scopes', 'x']], [['Impersonate-Uid', 'u']],
        [['Impersonate-User', ''], ['Impersonate-Group', 'g1']],
      ] as [string, string][][]) {
        const err = thrown(() => impersonationRequests(request(lines)));
        expect(err).to.be.instanceOf(ApiError);
        expect({ code: err.code, reason: err.reason }, JSON.stringify(lines)).to.deep.equal({ code: 400, reason: 'BadRequest' });
        expect(err.message).to.match(/^requested \[.+\] without impersonating a user$/);
      }
      expect(thrown(() => impersonationRequests(request([['Impersonate-Group', 'g1'], ['Impersonate-Uid', 'u']]))).message)
        .to.equal('requested [Group "g1", UID "u"] without impersonating a user');
    });
  });

  describe('impersonationAttributes (what the requestor must be allowed)', () => {
    const attrs = (r: ImpersonationRequest) => {
      const a = impersonationAttributes(jane, r, AUTHN_GROUP);
      return { verb: a.verb, apiGroup: a.apiGroup, resource: a.resource, subresource: a.subresource, namespace: a.namespace, name: a.name, user: a.user.name };
    };
    const base = { verb: 'impersonate', subresource: '', namespace: '', user: 'jane' };

    it('users, groups and service accounts in the core group; uids and userextras/<key> in the authentication group', () => {
      expect(attrs({ kind: 'User', name: 'alice' })).to.deep.equal({ ...base, apiGroup: '', resource: 'users', name: 'alice' });
      expect(attrs({ kind: 'Group', name: 'dev' })).to.deep.equal({ ...base, apiGroup: '', resource: 'groups', name: 'dev' });
      expect(attrs({ kind: 'ServiceAccount', namespace: 'ns', name: 'sa' })).to.deep.equal({ ...base, apiGroup: '', resource: 'serviceaccounts', namespace: 'ns', name: 'sa' });
      expect(attrs({ kind: 'UserExtra', key: 'scopes', value: 'view' })).to.deep.equal({ ...base, apiGroup: AUTHN_GROUP, resource: 'userextras', subresource: 'scopes', name: 'view' });
      expect(attrs({ kind: 'UID', uid: 'u-1' })).to.deep.equal({ ...base, apiGroup: AUTHN_GROUP, resource: 'uids', name: 'u-1' });
    });
  });

  describe('impersonate (the new user)', () => {
    it('is the user, groups, uid and extras asked for, plus system:authenticated', async () => {
      expect(await as([
        ['Impersonate-User', 'alice'], ['Impersonate-Group', 'g1'], ['Impersonate-Group', 'g2'], ['Impersonate-Uid', 'u-9'],
        ['Impersonate-Extra-Scopes', 'a'], ['Impersonate-Extra-Scopes', 'b'], ['Impersonate-Extra-Reason', 'audit'],
      ])).to.deep.equal({ name: 'alice', uid: 'u-9', groups: ['g1', 'g2', 'system:authenticated'], extra: { scopes: ['a', 'b'], reason: ['audit'] } });
    });

    it('keeps none of the requestor\'s groups, uid or extras', async () => {
      const requestor = { name: 'orch-admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'], extra: { k: ['v'] } };
      expect(await as([['Impersonate-User', 'alice']], recorder(), requestor)).to.deep.equal({ name: 'alice', groups: ['system:authenticated'] });
    });

    it('gives a service account its groups unless groups are asked', async () => {
      expect(await as([['Impersonate-User', 'system:serviceaccount:ns1:builder']])).to.deep.equal({
        name: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
      });
      expect(await as([['Impersonate-User', 'system:serviceaccount:ns1:builder'], ['Impersonate-Group', 'only']])).to.deep.equal({
        name: 'system:serviceaccount:ns1:builder', groups: ['only', 'system:authenticated'],
      });
    });

    it('counts an empty group line as a group asked (no service-account groups, "" kept)', async () => {
      expect(await as([['Impersonate-User', 'system:serviceaccount:ns1:builder'], ['Impersonate-Group', '']])).to.deep.equal({
        name: 'system:serviceaccount:ns1:builder', groups: ['', 'system:authenticated'],
      });
    });

    it('does not add system:authenticated when system:authenticated or system:unauthenticated is asked', async () => {
      expect((await as([['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:authenticated'], ['Impersonate-Group', 'x']])).groups)
        .to.deep.equal(['system:authenticated', 'x']);
      expect((await as([['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:unauthenticated']])).groups).to.deep.equal(['system:unauthenticated']);
    });

    it('makes system:anonymous a member of system:unauthenticated (never system:authenticated)', async () => {
      expect(await as([['Impersonate-User', 'system:anonymous']])).to.deep.equal({ name: 'system:anonymous', groups: ['system:unauthenticated'] });
      expect(await as([['Impersonate-User', 'system:anonymous'], ['Impersonate-Group', 'g']])).to.deep.equal({ name: 'system:anonymous', groups: ['g', 'system:unauthenticated'] });
      expect(await as([['Impersonate-User', 'system:anonymous'], ['Impersonate-Group', 'system:unauthenticated']]))
        .to.deep.equal({ name: 'system:anonymous', groups: ['system:unauthenticated'] });
      expect(await as([['Impersonate-User', 'system:anonymous'], ['Impersonate-Group', 'system:authenticated']]))
        .to.deep.equal({ name: 'system:anonymous', groups: ['system:authenticated', 'system:unauthenticated'] });
    });

    it('asks the authorizer once per request, for the requestor, in header order', async () => {
      const auth = recorder();
      await as([['Impersonate-User', 'alice'], ['Impersonate-Group', 'g1'], ['Impersonate-Extra-K', 'v'], ['Impersonate-Uid', 'u']], auth, jane);
      expect(auth.asked.map((a) => [a.user.name, a.resource, a.name])).to.deep.equal([
        ['jane', 'users', 'alice'], ['jane', 'groups', 'g1'], ['jane', 'userextras', 'v'], ['jane', 'uids', 'u'],
      ]);
    });

    describe('refusals (403 with Kubernetes\' sentence)', () => {
      it('for a user', async () => {
        const err = await refusal(as([['Impersonate-User', 'alice']], mastersOnly, jane));
        expect({ code: err.code, reason: err.reason, details: err.details }).to.deep.equal({ code: 403, reason: 'Forbidden', details: { name: 'alice', kind: 'users' } });
        expect(err.message).to.equal('users "alice" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope');
      });

      it('for a service account, in its namespace', async () => {
        const err = await refusal(as([['Impersonate-User', 'system:serviceaccount:ns1:sa']], mastersOnly, jane));
        expect(err.message).to.match(/^serviceaccounts "sa" is forbidden: User "jane" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"$/);
      });

      it('for the first refused part only (later parts are not asked)', async () => {
        const auth = recorder((a) => (a.resource === 'groups' && a.name === 'system:masters' ? deny('no masters') : allow()));
        const err = await refusal(as([['Impersonate-User', 'alice'], ['Impersonate-Group', 'system:masters'], ['Impersonate-Group', 'later']], auth, jane));
        expect(err.message).to.equal('groups "system:masters" is forbidden: User "jane" cannot impersonate resource "groups" in API group "" at the cluster scope: no masters');
        expect(auth.asked.map((a) => a.name)).to.deep.equal(['alice', 'system:masters']);
      });

      it('for an extra and a uid, in the authentication group; no opinion without a reason ends at the sentence', async () => {
        const refuse = (resource: string) => recorder((a) => (a.resource === resource ? noOpinion() : allow()));
        const extra = await refusal(as([['Impersonate-User', 'alice'], ['Impersonate-Extra-Scopes', 'view']], refuse('userextras'), jane));
        expect(extra.message).to.equal(`userextras.${AUTHN_GROUP} "view" is forbidden: User "jane" cannot impersonate resource "userextras/scopes" in API group "${AUTHN_GROUP}" at the cluster scope`);
        expect(extra.details).to.deep.equal({ name: 'view', group: AUTHN_GROUP, kind: 'userextras' });
        const uid = await refusal(as([['Impersonate-User', 'alice'], ['Impersonate-Uid', 'u-1']], refuse('uids'), jane));
        expect(uid.message).to.equal(`uids.${AUTHN_GROUP} "u-1" is forbidden: User "jane" cannot impersonate resource "uids" in API group "${AUTHN_GROUP}" at the cluster scope`);
      });

      it('the interim authorizer lets system:masters impersonate anyone', async () => {
        expect(await as([['Impersonate-User', 'alice'], ['Impersonate-Group', 'system:masters']], mastersOnly, admin))
          .to.deep.equal({ name: 'alice', groups: ['system:masters', 'system:authenticated'] });
      });
    });
  });

  it('impersonationHeaders names every impersonation header present, to be dropped', () => {
    const req = request([['Impersonate-User', 'a'], ['Impersonate-Extra-Foo', '1'], ['Impersonate-Extra-Bar%2Fbaz', '2'], ['Accept', '*/*']]);
    expect(impersonationHeaders(req)).to.have.members(['impersonate-user', 'impersonate-group', 'impersonate-uid', 'impersonate-extra-foo', 'impersonate-extra-bar%2fbaz']);
    req.removeHeaders(impersonationHeaders(req));
    expect(req.headerNames()).to.deep.equal(['accept']);
  });
});

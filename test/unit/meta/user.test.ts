import { expect } from 'chai';
import {
  anonymousUser, serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername, withAuthenticatedGroup,
} from '../../../lib/meta/user';

describe('UserInfo', () => {
  describe('withAuthenticatedGroup (AuthenticatedGroupAdder)', () => {
    it('appends system:authenticated, keeping name, uid and extra', () => {
      const user = { name: 'alice', uid: 'u-1', groups: ['dev'], extra: { scopes: ['a'] } };
      expect(withAuthenticatedGroup(user)).to.deep.equal({ name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } });
      expect(user.groups).to.deep.equal(['dev']);
    });

    it('returns the same object when the user already has system:authenticated or system:unauthenticated', () => {
      for (const groups of [['system:authenticated'], ['x', 'system:unauthenticated']]) {
        const user = { name: 'bob', groups };
        expect(withAuthenticatedGroup(user)).to.equal(user);
      }
    });

    it('leaves system:anonymous alone, whatever its groups', () => {
      for (const groups of [[], ['system:unauthenticated'], ['other']]) {
        const user = { name: 'system:anonymous', groups };
        expect(withAuthenticatedGroup(user)).to.equal(user);
      }
    });
  });

  it('anonymousUser is system:anonymous in system:unauthenticated, a fresh object each time', () => {
    expect(anonymousUser()).to.deep.equal({ name: 'system:anonymous', groups: ['system:unauthenticated'] });
    expect(anonymousUser()).not.to.equal(anonymousUser());
  });

  describe('service-account names', () => {
    it('make system:serviceaccount:<ns>:<name> and its two groups', () => {
      expect(serviceAccountUsername('kube', 'builder')).to.equal('system:serviceaccount:kube:builder');
      expect(serviceAccountGroups('kube')).to.deep.equal(['system:serviceaccounts', 'system:serviceaccounts:kube']);
    });

    it('split only a username of exactly a valid namespace and account name', () => {
      expect(splitServiceAccountUsername('system:serviceaccount:ns:name')).to.deep.equal({ namespace: 'ns', name: 'name' });
      expect(splitServiceAccountUsername('system:serviceaccount:ns:my.account')).to.deep.equal({ namespace: 'ns', name: 'my.account' });
      for (const u of ['system:serviceaccount:ns', 'system:serviceaccount:ns:a:b', 'system:serviceaccount::name', 'system:serviceaccount:ns:',
        'system:serviceaccount:Upper:name', 'system:serviceaccount:my.ns:name', 'system:serviceaccount:ns:Name', 'system:serviceaccounts:ns:name',
        'alice', 'System:serviceaccount:ns:name']) {
        expect(splitServiceAccountUsername(u), u).to.equal(undefined);
      }
    });
  });
});

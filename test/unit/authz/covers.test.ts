import { expect } from 'chai';
import { breakdownRule, nonResourceURLCovers, ruleCovers, uncoveredRules } from '../../../lib/authz/rbac/covers';
import { compactRules, compactString, goQuoteList } from '../../../lib/authz/rbac/escalation';
import { PolicyRule } from '../../../lib/registry/rbac/types';

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });
const covered = (held: PolicyRule[], requested: PolicyRule[]) => uncoveredRules(held, requested).length === 0;

describe('RBAC Covers', () => {
  describe('breakdownRule', () => {
    it('splits a rule into one rule per group, resource, verb and name, in that order', () => {
      expect(breakdownRule(r(['get', 'list'], ['', 'apps'], ['pods']))).to.deep.equal([
        r(['get'], [''], ['pods']), r(['list'], [''], ['pods']), r(['get'], ['apps'], ['pods']), r(['list'], ['apps'], ['pods']),
      ]);
      expect(breakdownRule(r(['get'], [''], ['secrets'], ['a', 'b']))).to.deep.equal([
        r(['get'], [''], ['secrets'], ['a']), r(['get'], [''], ['secrets'], ['b']),
      ]);
    });

    it('combines non-resource URLs with verbs only; a rule without verbs grants nothing', () => {
      expect(breakdownRule(urls(['get', 'post'], ['/healthz']))).to.deep.equal([urls(['get'], ['/healthz']), urls(['post'], ['/healthz'])]);
      expect(breakdownRule(r([], [''], ['pods']))).to.deep.equal([]);
      expect(uncoveredRules([], [r([], [''], ['pods'])])).to.deep.equal([]);
    });
  });

  describe('verbs, groups and resources', () => {
    it('an exact rule covers, another verb, group or resource does not', () => {
      const held = [r(['get', 'list'], [''], ['pods'])];
      expect(covered(held, [r(['get'], [''], ['pods'])])).to.equal(true);
      expect(covered(held, [r(['get', 'list'], [''], ['pods'])])).to.equal(true);
      expect(covered(held, [r(['delete'], [''], ['pods'])])).to.equal(false);
      expect(covered(held, [r(['get'], ['apps'], ['pods'])])).to.equal(false);
      expect(covered(held, [r(['get'], [''], ['services'])])).to.equal(false);
    });

    it('held * covers any verb, group or resource', () => {
      expect(covered([r(['*'], [''], ['pods'])], [r(['delete', 'escalate'], [''], ['pods'])])).to.equal(true);
      expect(covered([r(['get'], ['*'], ['pods'])], [r(['get'], ['apps', 'batch'], ['pods'])])).to.equal(true);
      expect(covered([r(['get'], [''], ['*'])], [r(['get'], [''], ['pods', 'pods/log', 'secrets'])])).to.equal(true);
    });

    it('a requested * is covered only by a held *, not by every named value', () => {
      const many = [r(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [''], ['pods'])];
      expect(covered(many, [r(['*'], [''], ['pods'])])).to.equal(false);
      expect(covered([r(['get'], [''], ['pods', 'secrets'])], [r(['get'], [''], ['*'])])).to.equal(false);
      expect(covered([r(['get'], ['', 'apps'], ['pods'])], [r(['get'], ['*'], ['pods'])])).to.equal(false);
      expect(covered([r(['*'], ['*'], ['*'])], [r(['*'], ['*'], ['*'])])).to.equal(true);
    });

    it('each atomic rule may be covered by a different held rule', () => {
      const held = [r(['get'], [''], ['pods']), r(['list'], [''], ['pods'])];
      expect(covered(held, [r(['get', 'list'], [''], ['pods'])])).to.equal(true);
    });
  });

  describe('subresources', () => {
    it('a resource does not cover its subresources, nor a subresource its resource', () => {
      expect(covered([r(['get'], [''], ['pods'])], [r(['get'], [''], ['pods/log'])])).to.equal(false);
      expect(covered([r(['get'], [''], ['pods/log'])], [r(['get'], [''], ['pods'])])).to.equal(false);
      expect(covered([r(['get'], [''], ['pods/log'])], [r(['get'], [''], ['pods/log'])])).to.equal(true);
    });

    it('*/subresource covers that subresource of any resource, and nothing else', () => {
      const held = [r(['update'], ['*'], ['*/status'])];
      expect(covered(held, [r(['update'], ['apps'], ['deployments/status'])])).to.equal(true);
      expect(covered(held, [r(['update'], [''], ['pods/status', 'nodes/status'])])).to.equal(true);
      expect(covered(held, [r(['update'], [''], ['pods'])])).to.equal(false);
      expect(covered(held, [r(['update'], [''], ['pods/scale'])])).to.equal(false);
      expect(covered(held, [r(['update'], [''], ['*/status'])])).to.equal(true);
      expect(covered(held, [r(['update'], [''], ['*'])])).to.equal(false);
    });

    it('resource/* is a name like any other, not a wildcard over subresources', () => {
      expect(covered([r(['get'], [''], ['pods/*'])], [r(['get'], [''], ['pods/log'])])).to.equal(false);
    });
  });

  describe('resourceNames', () => {
    it('a held rule without names covers any names; with names only those', () => {
      expect(covered([r(['get'], [''], ['secrets'])], [r(['get'], [''], ['secrets'], ['a', 'b'])])).to.equal(true);
      const named = [r(['get'], [''], ['secrets'], ['a', 'b'])];
      expect(covered(named, [r(['get'], [''], ['secrets'], ['a'])])).to.equal(true);
      expect(covered(named, [r(['get'], [''], ['secrets'], ['a', 'b'])])).to.equal(true);
      expect(covered(named, [r(['get'], [''], ['secrets'], ['c'])])).to.equal(false);
    });

    it('a held rule with names does not cover a requested rule without names (every object)', () => {
      expect(covered([r(['get'], [''], ['secrets'], ['a'])], [r(['get'], [''], ['secrets'])])).to.equal(false);
    });

    it('reports each missing name separately', () => {
      expect(uncoveredRules([r(['get'], [''], ['secrets'], ['a'])], [r(['get'], [''], ['secrets'], ['a', 'b', 'c'])])).to.deep.equal([
        r(['get'], [''], ['secrets'], ['b']), r(['get'], [''], ['secrets'], ['c']),
      ]);
    });
  });

  describe('non-resource URLs', () => {
    it('a URL covers itself; a URL ending in * covers every URL it prefixes', () => {
      expect(nonResourceURLCovers('/healthz', '/healthz')).to.equal(true);
      expect(nonResourceURLCovers('/healthz', '/healthz/etcd')).to.equal(false);
      expect(nonResourceURLCovers('/apis/*', '/apis/apps/v1')).to.equal(true);
      expect(nonResourceURLCovers('/apis/*', '/apis/')).to.equal(true);
      expect(nonResourceURLCovers('/apis/*', '/apis')).to.equal(false);
      expect(nonResourceURLCovers('/apis*', '/apisx')).to.equal(true);
      expect(nonResourceURLCovers('*', '/anything')).to.equal(true);
    });

    it('a requested URL with * is covered by the same or a wider *, not by the URLs it would match', () => {
      expect(covered([urls(['get'], ['/apis/*'])], [urls(['get'], ['/apis/*'])])).to.equal(true);
      expect(covered([urls(['get'], ['/*'])], [urls(['get'], ['/apis/*'])])).to.equal(true);
      expect(covered([urls(['get'], ['/apis/v1', '/apis/apps'])], [urls(['get'], ['/apis/*'])])).to.equal(false);
      expect(covered([urls(['get'], ['/apis/*'])], [urls(['get'], ['/*'])])).to.equal(false);
    });

    it('verbs count for URLs too; resource rules never cover URLs nor URL rules resources', () => {
      expect(covered([urls(['get'], ['*'])], [urls(['post'], ['/healthz'])])).to.equal(false);
      expect(covered([urls(['*'], ['*'])], [urls(['post'], ['/healthz'])])).to.equal(true);
      expect(covered([r(['*'], ['*'], ['*'])], [urls(['get'], ['/healthz'])])).to.equal(false);
      expect(covered([urls(['*'], ['*'])], [r(['get'], [''], ['pods'])])).to.equal(false);
    });
  });

  it('ruleCovers compares one held rule with one atomic rule', () => {
    expect(ruleCovers(r(['get'], [''], ['pods']), r(['get'], [''], ['pods']))).to.equal(true);
    expect(ruleCovers(r(['get'], [''], ['pods'], ['a']), r(['get'], [''], ['pods']))).to.equal(false);
  });

  it('answers what is missing, atom by atom, in the order requested', () => {
    const held = [r(['get', 'list'], [''], ['pods']), urls(['get'], ['/healthz'])];
    expect(uncoveredRules(held, [r(['get', 'delete'], [''], ['pods', 'services']), urls(['get', 'post'], ['/healthz'])])).to.deep.equal([
      r(['delete'], [''], ['pods']), r(['get'], [''], ['services']), r(['delete'], [''], ['services']), urls(['post'], ['/healthz']),
    ]);
  });
});

describe('RBAC missing-rule text (Kubernetes CompactRules and CompactString)', () => {
  it('prints a rule as Go does, fields in Kubernetes order, empty ones left out', () => {
    expect(compactString(r(['delete'], [''], ['pods']))).to.equal('{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}');
    expect(compactString(r(['get', 'list'], ['apps'], ['deployments'], ['a']))).to.equal('{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["a"], Verbs:["get" "list"]}');
    expect(compactString(urls(['get'], ['/healthz']))).to.equal('{NonResourceURLs:["/healthz"], Verbs:["get"]}');
    expect(goQuoteList(['g1', 'system:authenticated'])).to.equal('["g1" "system:authenticated"]');
    expect(goQuoteList(['a"b\n'])).to.equal('["a\\"b\\n"]');
  });

  it('merges the verbs of atomic rules of one group, resource and name; keeps URL rules apart', () => {
    const missing = uncoveredRules([], [r(['get', 'delete'], [''], ['pods', 'secrets'], ['x']), urls(['get', 'post'], ['/metrics'])]);
    expect(compactRules(missing).map(compactString).sort()).to.deep.equal([
      '{APIGroups:[""], Resources:["pods"], ResourceNames:["x"], Verbs:["get" "delete"]}',
      '{APIGroups:[""], Resources:["secrets"], ResourceNames:["x"], Verbs:["get" "delete"]}',
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
      '{NonResourceURLs:["/metrics"], Verbs:["post"]}',
    ]);
  });
});

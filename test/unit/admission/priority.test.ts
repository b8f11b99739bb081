/**
 * The Priority admission plugin on hand-made requests over an in-memory set of PriorityClasses:
 * a table of pods (class name, values the pod sets) and classes (values, policies, defaults) to
 * the priority, policy and class name the pod gets or Kubernetes' refusal; pod updates keeping
 * the stored values; the one-globalDefault check on PriorityClass writes.
 */
import { expect } from 'chai';
import { priorityPlugin } from '../../../lib/admission/pod/priority';
import { PriorityClassSource } from '../../../lib/admission/pod/priority-classes';
import { ApiObject, ResourceDef } from '../../../lib/scheme/types';
import { pod, podAttrs, rejection, specOf } from './pod-plugin-attrs';

const GROUP = 'scheduling.k8s.io';
const PRIORITY_CLASSES = { group: GROUP, version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', namespaced: false } as ResourceDef;
type Fields = { value: number; globalDefault?: boolean; preemptionPolicy?: string };
const klass = (name: string, f: Fields): ApiObject => ({ metadata: { name }, ...f });

/** Classes by name; `calls` records the live lists. */
function source(classes: ApiObject[]): PriorityClassSource & { liveLists: number } {
  const s = {
    liveLists: 0,
    get: async (name: string) => classes.find((c) => c.metadata?.name === name),
    list: async (live = false) => { if (live) s.liveLists++; return classes; },
  };
  return s;
}

const SYSTEM = [
  klass('system-node-critical', { value: 2000001000, preemptionPolicy: 'PreemptLowerPriority' }),
  klass('system-cluster-critical', { value: 2000000000, preemptionPolicy: 'PreemptLowerPriority' }),
];
const GOLD = klass('gold', { value: 5000, preemptionPolicy: 'Never' });
const OLD_STYLE = klass('no-policy', { value: 7 });
const DEFAULT_LOW = klass('low-default', { value: 10, globalDefault: true, preemptionPolicy: 'Never' });
const DEFAULT_HIGH = klass('high-default', { value: 20, globalDefault: true, preemptionPolicy: 'PreemptLowerPriority' });

describe('Priority admission plugin', () => {
  type Row = [what: string, classes: ApiObject[], podSpec: Record<string, unknown>, expected: Record<string, unknown> | string];
  const rows: Row[] = [
    ['no class and no default: 0, PreemptLowerPriority, no class name', SYSTEM, {}, { priority: 0, preemptionPolicy: 'PreemptLowerPriority', priorityClassName: undefined }],
    ['a system class in any namespace', SYSTEM, { priorityClassName: 'system-node-critical' }, { priority: 2000001000, preemptionPolicy: 'PreemptLowerPriority' }],
    ["a custom class's value and policy", [...SYSTEM, GOLD], { priorityClassName: 'gold' }, { priority: 5000, preemptionPolicy: 'Never', priorityClassName: 'gold' }],
    ['the same values the pod already states', [GOLD], { priorityClassName: 'gold', priority: 5000, preemptionPolicy: 'Never' }, { priority: 5000, preemptionPolicy: 'Never' }],
    ['a class without a policy leaves the pod\'s', [OLD_STYLE], { priorityClassName: 'no-policy', preemptionPolicy: 'Never' }, { priority: 7, preemptionPolicy: 'Never' }],
    ["the default's name, value and policy", [GOLD, DEFAULT_LOW], {}, { priority: 10, preemptionPolicy: 'Never', priorityClassName: 'low-default' }],
    ['of two defaults (a race), the lower value', [DEFAULT_HIGH, DEFAULT_LOW], {}, { priority: 10, priorityClassName: 'low-default' }],
    ['a named class wins over the default', [GOLD, DEFAULT_LOW], { priorityClassName: 'gold' }, { priority: 5000, priorityClassName: 'gold' }],
    ['an unknown class', SYSTEM, { priorityClassName: 'high' }, 'pods "web" is forbidden: no PriorityClass with name high was found'],
    ['a priority the pod sets itself', SYSTEM, { priority: 10 },
      'pods "web" is forbidden: the integer value of priority (10) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name'],
    ["a priority other than the class's", [GOLD], { priorityClassName: 'gold', priority: 1 },
      'pods "web" is forbidden: the integer value of priority (1) must not be provided in pod spec; priority admission controller computed 5000 from the given PriorityClass name'],
    ['a policy other than the computed one', SYSTEM, { preemptionPolicy: 'Never' },
      'pods "web" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name'],
    ["a policy other than the default's", [DEFAULT_LOW], { preemptionPolicy: 'PreemptLowerPriority' },
      'pods "web" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name'],
  ];
  for (const [what, classes, spec, expected] of rows) {
    it(typeof expected === 'string' ? `refuses ${what}` : `gives ${what}`, async () => {
      const p = priorityPlugin(source(classes), GROUP);
      const a = podAttrs(pod(spec));
      if (typeof expected === 'string') {
        const err = await rejection(() => p.admit!(a));
        expect(err.code).to.equal(403);
        expect(err.message).to.equal(expected);
        return;
      }
      await p.admit!(a);
      for (const [k, v] of Object.entries(expected)) expect(specOf(a)[k], k).to.equal(v);
    });
  }

  it('keeps the stored priority and policy on an update that omits them, and reads no class', async () => {
    const p = priorityPlugin({ get: async () => { throw new Error('no read on update'); }, list: async () => { throw new Error('no read on update'); } }, GROUP);
    const stored = pod({ priority: 5000, preemptionPolicy: 'Never', priorityClassName: 'gold' });
    const a = podAttrs(pod({ priorityClassName: 'gold' }), { operation: 'UPDATE', old: stored });
    await p.admit!(a);
    expect(specOf(a)).to.include({ priority: 5000, preemptionPolicy: 'Never' });
  });

  it('leaves pod subresources alone', async () => {
    const p = priorityPlugin(source([]), GROUP);
    const a = podAttrs(pod({ priorityClassName: 'missing' }), { subresource: 'status', operation: 'UPDATE', old: pod() });
    await p.admit!(a);
    expect(specOf(a).priority).to.equal(undefined);
  });

  describe('PriorityClass writes', () => {
    const write = (obj: ApiObject, operation: 'CREATE' | 'UPDATE' = 'CREATE') =>
      podAttrs(obj, { resource: PRIORITY_CLASSES, operation, old: operation === 'UPDATE' ? obj : undefined });

    it('refuses a second default on create, reading the classes live', async () => {
      const s = source([GOLD, DEFAULT_LOW]);
      const p = priorityPlugin(s, GROUP);
      const err = await rejection(() => p.validate!(write(klass('new', { value: 1, globalDefault: true }))));
      expect(err.code).to.equal(403);
      expect(err.message).to.equal('priorityclasses.scheduling.k8s.io "new" is forbidden: PriorityClass low-default is already marked as default. Only one default can exist');
      expect(s.liveLists).to.equal(1);
    });

    it('refuses marking another class default, and lets the default itself be updated', async () => {
      const p = priorityPlugin(source([GOLD, DEFAULT_LOW]), GROUP);
      const err = await rejection(() => p.validate!(write(klass('gold', { value: 5000, globalDefault: true }), 'UPDATE')));
      expect(err.message).to.equal('priorityclasses.scheduling.k8s.io "gold" is forbidden: PriorityClass low-default is already marked as default. Only one default can exist');
      await p.validate!(write(DEFAULT_LOW, 'UPDATE'));
    });

    it('accepts the first default and any class that is not default, without a read', async () => {
      const s = source([GOLD]);
      const p = priorityPlugin(s, GROUP);
      await p.validate!(write(klass('first', { value: 1, globalDefault: true })));
      const others = source([DEFAULT_LOW]);
      await priorityPlugin(others, GROUP).validate!(write(klass('plain', { value: 1 })));
      expect(others.liveLists).to.equal(0);
    });
  });
});

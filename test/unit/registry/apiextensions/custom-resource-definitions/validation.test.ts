/**
 * CustomResourceDefinition validation with Kubernetes' messages and field paths as data: a table
 * of bad CRDs (each a change to a valid one) and the exact errors; defaults; the strategy's
 * status, generation and storedVersions; the conditions helpers.
 */
import { expect } from 'chai';
import { flavors } from '../../../../../lib/naming';
import { formatFieldError } from '../../../../../lib/meta/field-errors';
import { ApiObject } from '../../../../../lib/scheme/types';
import { customResourceDefinitionResource } from '../../../../../lib/registry/apiextensions/custom-resource-definitions/definition';
import { defaultCrd } from '../../../../../lib/registry/apiextensions/custom-resource-definitions/defaults';
import { findCondition, isTrue, setCondition } from '../../../../../lib/registry/apiextensions/custom-resource-definitions/conditions';

type Obj = Record<string, any>;
const naming = flavors.orch;
const def = customResourceDefinitionResource(naming);
const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } } } } } };
const LABEL = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const V1 = 'apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:false, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}';

function base(): Obj {
  return {
    apiVersion: 'apiextensions.orch.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' },
      versions: [{ name: 'v1', served: true, storage: true, schema }],
    },
  };
}

/** Errors of creating `obj` as the store would: defaults, prepareForCreate, validate. */
function createErrors(obj: Obj): string[] {
  def.strategy.prepareForCreate!(obj as ApiObject, {});
  return def.strategy.validate!(obj as ApiObject, {}).map(formatFieldError);
}

const cases: Array<[string, (c: Obj) => void, string[]]> = [
  ['a valid CRD', () => undefined, []],
  ['no group', (c) => { c.spec.group = ''; c.metadata.name = 'crontabs.'; }, ['spec.group: Required value']],
  ['a group without a dot', (c) => { c.spec.group = 'example'; c.metadata.name = 'crontabs.example'; }, ['spec.group: Invalid value: "example": should be a domain with at least one dot']],
  ['a name that is not plural.group', (c) => { c.metadata.name = 'tabs.stable.example.com'; }, ['metadata.name: Invalid value: "tabs.stable.example.com": must be spec.names.plural+"."+spec.group']],
  ['no scope', (c) => { delete c.spec.scope; }, ['spec.scope: Required value']],
  ['a bad scope', (c) => { c.spec.scope = 'Global'; }, ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
  ['no storage version', (c) => { c.spec.versions[0].storage = false; }, [
    `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${V1}}: must have exactly one version marked as storage version`,
    'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
  ]],
  ['a version name that is not a DNS-1035 label', (c) => { c.spec.versions[0].name = '1v'; }, [
    `spec.versions[0].name: Invalid value: "1v": ${LABEL}`, `spec.version: Invalid value: "1v": ${LABEL}`,
  ]],
  ['no schema (one version)', (c) => { delete c.spec.versions[0].schema; }, ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']],
  ['a bad plural and kind', (c) => { c.spec.names = { plural: 'Cron_Tabs', kind: 'Cron-Tab-' }; c.metadata.name = 'Cron_Tabs.stable.example.com'; }, [
    `spec.names.plural: Invalid value: "Cron_Tabs": ${LABEL}`,
    `spec.names.singular: Invalid value: "cron-tab-": ${LABEL}`,
    `spec.names.kind: Invalid value: "Cron-Tab-": may have mixed case, but should otherwise match: ${LABEL}`,
  ]],
  ['listKind equal to kind', (c) => { c.spec.names.listKind = 'CronTab'; }, ['spec.names.listKind: Invalid value: "CronTab": kind and listKind may not be the same']],
  ['a bad short name and category', (c) => { c.spec.names.shortNames = ['ct', 'C T']; c.spec.names.categories = ['all', '9']; }, [
    `spec.names.shortNames[1]: Invalid value: "C T": ${LABEL}`, `spec.names.categories[1]: Invalid value: "9": ${LABEL}`,
  ]],
  ['bad printer columns (one version: top-level path)', (c) => {
    c.spec.versions[0].additionalPrinterColumns = [{ name: '', type: '', jsonPath: 'spec' }, { name: 'x', type: 'map', format: 'uuid', jsonPath: '' }];
  }, [
    'spec.additionalPrinterColumns[0].name: Required value',
    'spec.additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec": must be a simple json path starting with .',
    'spec.additionalPrinterColumns[1].type: Invalid value: "map": must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[1].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
    'spec.additionalPrinterColumns[1].JSONPath: Required value',
  ]],
  ['bad scale paths', (c) => {
    c.spec.versions[0].subresources = { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '', labelSelectorPath: '.metadata.labels' } };
  }, [
    'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
    'spec.subresources.scale.statusReplicasPath: Required value',
    'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
  ]],
  ['per-version columns (two versions differ: per-version path)', (c) => {
    c.spec.versions = [{ name: 'v1', served: true, storage: true, schema, additionalPrinterColumns: [{ name: 'c', type: 'string', jsonPath: 'x' }] },
      { name: 'v2', served: true, storage: false, schema }];
  }, ['spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .']],
  ['duplicate version names', (c) => { c.spec.versions = [{ name: 'v1', served: true, storage: true, schema }, { name: 'v1', served: true, storage: false, schema }]; }, [
    `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${V1.replace('Storage:false', 'Storage:true')}, ${V1}}: must contain unique version names`,
  ]],
  ['a deprecation warning on a version that is not deprecated', (c) => { c.spec.versions[0].deprecationWarning = 'old'; }, [
    'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions',
  ]],
  ['bad deprecation warnings', (c) => {
    c.spec.versions = [{ name: 'v1', served: true, storage: true, schema, deprecated: true, deprecationWarning: '' },
      { name: 'v2', served: true, storage: false, schema, deprecated: true, deprecationWarning: 'é\tx' }];
  }, [
    'spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string',
    'spec.versions[1].deprecationWarning: Invalid value: "é\\tx": must only contain printable UTF-8 characters; non-printable character found at index 2',
  ]],
  ['selectable fields', (c) => {
    c.spec.versions[0].selectableFields = [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.tags' }, { jsonPath: '.spec.nope' },
      { jsonPath: '.metadata.name' }, { jsonPath: '.spec.color' }, { jsonPath: 'spec.size' }, { jsonPath: '.spec[0]' }, { jsonPath: '' }];
  }, [
    'spec.selectableFields[1].jsonPath: Invalid value: ".spec.tags": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
    'spec.selectableFields[2].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field',
    'spec.selectableFields[3].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field',
    'spec.selectableFields[4].jsonPath: Duplicate value: ".spec.color"',
    'spec.selectableFields[5].jsonPath: Invalid value: "spec.size": is an invalid path: expected [ or . but got: spec',
    'spec.selectableFields[6].jsonPath: Invalid value: ".spec[0]": is an invalid path: array notation is not allowed',
    'spec.selectableFields[7].jsonPath: Required value',
  ]],
  ['a webhook conversion without client config or review versions', (c) => { c.spec.conversion = { strategy: 'Webhook' }; }, [
    'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
    'spec.conversion.conversionReviewVersions: Required value',
  ]],
  ['a webhook conversion with both url and service, unknown review versions', (c) => {
    c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example.com', service: { name: 's', namespace: 'n' } }, conversionReviewVersions: ['v2', 'v2'] } };
  }, [
    'spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required',
    'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
    'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1',
  ]],
  ['a webhook url over http', (c) => {
    c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://x.example.com/convert' }, conversionReviewVersions: ['v1'] } };
  }, ["spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"]],
  ['webhook settings with strategy None', (c) => {
    c.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://x.example.com' }, conversionReviewVersions: ['v1'] } };
  }, [
    'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
    'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
  ]],
  ['a bad conversion strategy', (c) => { c.spec.conversion = { strategy: 'Magic' }; }, ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"']],
  ['preserveUnknownFields true', (c) => { c.spec.preserveUnknownFields = true; }, [
    'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
  ]],
  ['a protected group without approval', (c) => { c.spec.group = 'stable.k8s.io'; c.metadata.name = 'crontabs.stable.k8s.io'; }, [
    'metadata.annotations[api-approved.orch.io]: Required value: protected groups must have approval annotation "api-approved.orch.io", see https://github.com/kubernetes/enhancements/pull/1111',
  ]],
  ['a protected group with an invalid approval', (c) => { c.spec.group = 'orch.io'; c.metadata.name = 'crontabs.orch.io'; c.metadata.annotations = { 'api-approved.orch.io': 'yes' }; }, [
    'metadata.annotations[api-approved.orch.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.orch.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
  ]],
  ['a protected group, bypassed', (c) => { c.spec.group = 'x.kubernetes.io'; c.metadata.name = 'crontabs.x.kubernetes.io'; c.metadata.annotations = { 'api-approved.orch.io': 'unapproved, testing' }; }, []],
];

describe('CustomResourceDefinition validation (Kubernetes messages)', () => {
  for (const [what, change, expected] of cases) {
    it(what, () => {
      const c = base();
      change(c);
      expect(createErrors(c)).to.deep.equal(expected);
    });
  }

  it('on update: group and plural are immutable; scope and kind too once Established', () => {
    const old = base();
    def.strategy.prepareForCreate!(old as ApiObject, {});
    const next = structuredClone(old);
    next.spec.group = 'other.example.com';
    next.spec.scope = 'Cluster';
    def.strategy.prepareForUpdate!(next as ApiObject, old as ApiObject, {});
    const errs = () => def.strategy.validateUpdate!(next as ApiObject, old as ApiObject, {}).map(formatFieldError);
    expect(errs()).to.deep.equal(['spec.group: Invalid value: "other.example.com": field is immutable']);
    setCondition(old as ApiObject, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    expect(errs()).to.deep.equal(['spec.scope: Invalid value: "Cluster": field is immutable', 'spec.group: Invalid value: "other.example.com": field is immutable']);
  });

  it('on update: a removed version still in storedVersions is refused', () => {
    const old = base();
    old.spec.versions = [{ name: 'v1', served: true, storage: false, schema }, { name: 'v2', served: true, storage: true, schema }];
    def.strategy.prepareForCreate!(old as ApiObject, {});
    old.status.storedVersions = ['v1', 'v2'];
    const next = structuredClone(old);
    next.spec.versions = [next.spec.versions[1]];
    def.strategy.prepareForUpdate!(next as ApiObject, old as ApiObject, {});
    expect(def.strategy.validateUpdate!(next as ApiObject, old as ApiObject, {}).map(formatFieldError))
      .to.deep.equal(['status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions']);
  });
});

describe('CustomResourceDefinition defaults and strategy', () => {
  it('defaults singular, listKind, conversion, the service port and storedVersions', () => {
    const c = base();
    c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 's', namespace: 'n' } }, conversionReviewVersions: ['v1'] } };
    defaultCrd(c as ApiObject);
    expect(c.spec.names).to.deep.equal({ plural: 'crontabs', kind: 'CronTab', singular: 'crontab', listKind: 'CronTabList' });
    expect(c.spec.conversion.webhook.clientConfig.service.port).to.equal(443);
    expect(c.status.storedVersions).to.deep.equal(['v1']);
    const plain = base();
    defaultCrd(plain as ApiObject);
    expect(plain.spec.conversion).to.deep.equal({ strategy: 'None' });
  });

  it('clears client status on create; keeps the stored one on update; generation follows spec changes', () => {
    const c = base();
    c.status = { acceptedNames: { plural: 'x', kind: 'X' }, conditions: [{ type: 'Established', status: 'True' }] };
    def.strategy.prepareForCreate!(c as ApiObject, {});
    expect(c.status).to.deep.equal({ acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    expect(c.metadata.generation).to.equal(1);
    const next = structuredClone(c);
    next.status = { storedVersions: [] };
    def.strategy.prepareForUpdate!(next as ApiObject, c as ApiObject, {});
    expect(next.status).to.deep.equal(c.status);
    expect(def.strategy.specChanged!(next as ApiObject, c as ApiObject)).to.equal(false);
    next.spec.versions[0].served = false;
    expect(def.strategy.specChanged!(next as ApiObject, c as ApiObject)).to.equal(true);
  });

  it('/status keeps the stored spec', () => {
    const c = base();
    def.strategy.prepareForCreate!(c as ApiObject, {});
    const status = def.subresources.find((s) => s.name === 'status')!;
    const out = status.applyUpdate!({ ...structuredClone(c), spec: { group: 'x' }, status: { storedVersions: ['v1'], acceptedNames: { plural: 'crontabs', kind: 'CronTab' } } } as ApiObject, c as ApiObject);
    expect(out.spec).to.deep.equal(c.spec);
    expect((out.status as Obj).acceptedNames).to.deep.equal({ plural: 'crontabs', kind: 'CronTab' });
  });

  it('the first delete adds the cleanup finalizer and the Terminating condition', () => {
    const c = base();
    def.strategy.prepareForCreate!(c as ApiObject, {});
    expect(def.strategy.blocksRemoval!(c as ApiObject)).to.equal(true);
    c.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    c.metadata.deletionGracePeriodSeconds = 0;
    def.strategy.onDeleteRequested!(c as ApiObject);
    expect(c.metadata.finalizers).to.deep.equal(['customresourcecleanup.apiextensions.orch.io']);
    expect(c.metadata.deletionGracePeriodSeconds).to.equal(undefined);
    expect(findCondition(c as ApiObject, 'Terminating')).to.deep.include({ status: 'True', reason: 'InstanceDeletionPending' });
    expect(def.strategy.blocksRemoval!(c as ApiObject)).to.equal(false);
    expect(customResourceDefinitionResource(flavors.kubernetes).strategy.onDeleteRequested).to.be.a('function');
    expect(flavors.kubernetes.crdCleanupFinalizer).to.equal('customresourcecleanup.apiextensions.k8s.io');
    expect(flavors.kubernetes.apiApprovedAnnotation).to.equal('api-approved.kubernetes.io');
  });
});

describe('crd-conditions', () => {
  it('sets a condition, moving lastTransitionTime only when the status changes', () => {
    const c: ApiObject = {};
    setCondition(c, { type: 'NamesAccepted', status: 'False', reason: 'KindConflict', message: '"X" is already in use' }, 'T1');
    expect(isTrue(c, 'NamesAccepted')).to.equal(false);
    setCondition(c, { type: 'NamesAccepted', status: 'False', reason: 'PluralConflict', message: '"x" is already in use' }, 'T2');
    expect(findCondition(c, 'NamesAccepted')).to.deep.equal({ type: 'NamesAccepted', status: 'False', lastTransitionTime: 'T1', reason: 'PluralConflict', message: '"x" is already in use' });
    setCondition(c, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, 'T3');
    expect(findCondition(c, 'NamesAccepted')?.lastTransitionTime).to.equal('T3');
    expect(isTrue(c, 'NamesAccepted')).to.equal(true);
    expect(findCondition(c, 'Established')).to.equal(undefined);
  });
});

import { expect } from 'chai';
import { crTableColumns } from '../../../../lib/apiextensions/serving/cr-table';
import { ageColumn, nameColumn } from '../../../../lib/meta/table';

const now = new Date('2024-01-01T01:00:00Z');
const obj = {
  metadata: { name: 'my-cron', creationTimestamp: '2024-01-01T00:55:00Z' },
  spec: {
    cronSpec: '* * * * */5', replicas: 3, ratio: 1.5, big: 1e6, paused: true, tags: ['a', 'b'], labels: { b: '<2>', a: 1 },
    nothing: null, when: '2024-01-01T00:00:00Z', badDate: 'yesterday', emptyDate: '',
  },
};

describe('cr-table (Kubernetes CRD table convertor)', () => {
  it('serves Name and Age (a date column at .metadata.creationTimestamp) without printer columns', () => {
    const t = crTableColumns([]);
    expect(t.columns).to.deep.equal([nameColumn, { ...ageColumn, type: 'date' }]);
    expect(t.cells(obj, now)).to.deep.equal(['my-cron', '5m']);
    expect(t.cells({ metadata: { name: 'n' } }, now)).to.deep.equal(['n', null]);
  });

  it('makes column definitions with type, format, priority and the default description', () => {
    const t = crTableColumns([
      { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
      { name: 'Replicas', type: 'integer', format: 'int32', priority: 1, description: 'How many', jsonPath: '.spec.replicas' },
    ]);
    expect(t.columns.map((c) => c.name)).to.deep.equal(['Name', 'Spec', 'Replicas']);
    expect(t.columns[1]).to.deep.equal({ name: 'Spec', type: 'string', format: '', priority: 0, description: 'Custom resource definition column (in JSONPath format): .spec.cronSpec' });
    expect(t.columns[2]).to.deep.equal({ name: 'Replicas', type: 'integer', format: 'int32', priority: 1, description: 'How many' });
  });

  it('prints string cells as kubectl JSONPath does: scalars with fmt.Sprint, maps and lists as Go JSON, null as <no value>', () => {
    const t = crTableColumns(['.spec.cronSpec', '.spec.replicas', '.spec.ratio', '.spec.big', '.spec.paused', '.spec.tags', '.spec.labels', '.spec.nothing', '.spec.missing', '.spec.tags[*]']
      .map((jsonPath) => ({ name: jsonPath, type: 'string', jsonPath })));
    expect(t.cells(obj, now).slice(1)).to.deep.equal(['* * * * */5', '3', '1.5', '1000000', 'true', '["a","b"]', '{"a":1,"b":"\\u003c2\\u003e"}', '<no value>', null, 'a']);
  });

  it('keeps typed cells only when the JSON value has the type; dates are ages', () => {
    const col = (type: string, jsonPath: string) => ({ name: jsonPath, type, jsonPath });
    const t = crTableColumns([
      col('integer', '.spec.replicas'), col('integer', '.spec.ratio'), col('integer', '.spec.cronSpec'),
      col('number', '.spec.ratio'), col('number', '.spec.replicas'), col('number', '.spec.paused'),
      col('boolean', '.spec.paused'), col('boolean', '.spec.cronSpec'),
      col('date', '.spec.when'), col('date', '.spec.badDate'), col('date', '.spec.emptyDate'), col('date', '.spec.replicas'),
      col('integer', '.spec.nothing'),
    ]);
    expect(t.cells(obj, now).slice(1)).to.deep.equal([3, 1, null, 1.5, 3, null, true, null, '60m', '<invalid>', '<unknown>', null, null]);
  });

  it('answers null for a path that fails on this object (index out of range)', () => {
    const t = crTableColumns([{ name: 'Third', type: 'string', jsonPath: '.spec.tags[2]' }]);
    expect(t.cells(obj, now)).to.deep.equal(['my-cron', null]);
  });

  it('stops at a column whose path does not parse, keeping those before it', () => {
    const t = crTableColumns([
      { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
      { name: 'Bad', type: 'string', jsonPath: '.spec.tags[?(@ == "a")]' },
      { name: 'After', type: 'string', jsonPath: '.spec.image' },
    ]);
    expect(t.columns.map((c) => c.name)).to.deep.equal(['Name', 'Spec']);
    expect(t.cells(obj, now)).to.deep.equal(['my-cron', '* * * * */5']);
  });
});

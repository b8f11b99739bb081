import { expect } from 'chai';
import { convertToTable } from '../../../../lib/api/table/convert-table';
import { parseTableOptions } from '../../../../lib/api/table/table-options';
import { ApiError } from '../../../../lib/meta/api-errors';
import { ApiObject, ResourceDef } from '../../../../lib/scheme/types';
import { configMapResource } from '../../../../lib/registry/core/configmaps/definition';
import { secretResource } from '../../../../lib/registry/core/secrets/definition';
import { namespaceResource } from '../../../../lib/registry/core/namespaces/definition';
import { flavors } from '../../../../lib/naming';

const now = new Date('2024-05-01T12:00:00Z');
const meta = (name: string, extra: Record<string, unknown> = {}) => ({
  name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7', creationTimestamp: '2024-05-01T11:57:00Z', labels: { app: name }, ...extra,
});
const cm = (name: string, data: Record<string, string>, binaryData?: Record<string, string>): ApiObject =>
  ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: meta(name), data, ...(binaryData ? { binaryData } : {}) });
const opts = { includeObject: 'Metadata' as const, apiVersion: 'meta.k8s.io/v1', now };

/** A kind with no columns of its own. */
const widgets: ResourceDef = { ...configMapResource(), kind: 'Widget', listKind: 'WidgetList', resource: 'widgets', table: undefined };

describe('convertToTable', () => {
  it('a kind without columns gets the default Name / Created At table', () => {
    const table = convertToTable(widgets, { kind: 'Widget', apiVersion: 'v1', metadata: meta('w1') }, opts);
    expect(table.columnDefinitions!.map((c) => [c.name, c.type, c.format, c.priority])).to.deep.equal([
      ['Name', 'string', 'name', 0], ['Created At', 'date', '', 0],
    ]);
    expect(table.columnDefinitions!.every((c) => c.description.length > 0)).to.equal(true);
    expect(table.rows[0].cells).to.deep.equal(['w1', '2024-05-01T11:57:00Z']);
  });

  it('ConfigMap: Name, Data (data + binaryData keys), Age', () => {
    const table = convertToTable(configMapResource(), cm('a', { x: '1', y: '2' }, { z: 'AA==' }), opts);
    expect(table.columnDefinitions!.map((c) => [c.name, c.type, c.format])).to.deep.equal([['Name', 'string', 'name'], ['Data', 'string', ''], ['Age', 'string', '']]);
    expect(table.rows[0].cells).to.deep.equal(['a', 3, '3m']);
  });

  it('Secret: Name, Type, Data, Age', () => {
    const secret = { kind: 'Secret', apiVersion: 'v1', metadata: meta('s'), type: 'kubernetes.io/tls', data: { 'tls.crt': 'QQ==', 'tls.key': 'Qg==' } };
    const table = convertToTable(secretResource(), secret, opts);
    expect(table.columnDefinitions!.map((c) => c.name)).to.deep.equal(['Name', 'Type', 'Data', 'Age']);
    expect(table.rows[0].cells).to.deep.equal(['s', 'kubernetes.io/tls', 2, '3m']);
  });

  it('Namespace: Name, Status (phase), Age', () => {
    const ns = { kind: 'Namespace', apiVersion: 'v1', metadata: meta('team', { namespace: undefined }), status: { phase: 'Terminating' } };
    const table = convertToTable(namespaceResource(flavors.orch), ns, opts);
    expect(table.columnDefinitions!.map((c) => c.name)).to.deep.equal(['Name', 'Status', 'Age']);
    expect(table.rows[0].cells).to.deep.equal(['team', 'Terminating', '3m']);
  });

  it('a list: a row per item in order, and the list metadata (empty continue left out)', () => {
    const list = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 }, items: [cm('a', {}), cm('b', { k: 'v' })] };
    const table = convertToTable(configMapResource(), list, opts);
    expect(table).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(table.metadata).to.deep.equal({ resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
    expect(table.rows.map((r) => r.cells[0])).to.deep.equal(['a', 'b']);
    const empty = convertToTable(configMapResource(), { ...list, metadata: { resourceVersion: '43', continue: '' }, items: [] }, opts);
    expect(empty.metadata).to.deep.equal({ resourceVersion: '43' });
    expect(empty.rows).to.deep.equal([]);
  });

  it("one object: the object's resourceVersion", () => {
    expect(convertToTable(configMapResource(), cm('a', {}), opts).metadata).to.deep.equal({ resourceVersion: '7' });
  });

  it('includeObject: Metadata is PartialObjectMetadata of the Table version, Object the object, None null', () => {
    const obj = cm('a', { x: '1' });
    const metadata = convertToTable(configMapResource(), obj, { ...opts, apiVersion: 'meta.orch.io/v1beta1' }).rows[0].object;
    expect(metadata).to.deep.equal({ kind: 'PartialObjectMetadata', apiVersion: 'meta.orch.io/v1beta1', metadata: obj.metadata });
    expect(convertToTable(configMapResource(), obj, { ...opts, includeObject: 'Object' }).rows[0].object).to.deep.equal(obj);
    expect(convertToTable(configMapResource(), obj, { ...opts, includeObject: 'None' }).rows[0]).to.deep.equal({ cells: ['a', 1, '3m'], object: null });
  });

  it('noHeaders leaves the column definitions null (every Table of a watch after the first)', () => {
    expect(convertToTable(configMapResource(), cm('a', {}), { ...opts, noHeaders: true }).columnDefinitions).to.equal(null);
  });
});

describe('parseTableOptions', () => {
  it('includeObject defaults to Metadata and takes None, Metadata, Object', () => {
    expect(parseTableOptions(new URLSearchParams(''))).to.deep.equal({ includeObject: 'Metadata' });
    expect(parseTableOptions(new URLSearchParams('includeObject='))).to.deep.equal({ includeObject: 'Metadata' });
    for (const v of ['None', 'Metadata', 'Object']) expect(parseTableOptions(new URLSearchParams(`includeObject=${v}`))).to.deep.equal({ includeObject: v });
  });

  it("anything else is 400 with Kubernetes' message", () => {
    let err: ApiError | undefined;
    try { parseTableOptions(new URLSearchParams('includeObject=all')); } catch (e) { err = e as ApiError; }
    expect(err?.code).to.equal(400);
    expect(err?.message).to.equal('Unable to convert to Table as requested: includeObject: Unsupported value: "all": supported values: "Metadata", "None", "Object"');
  });
});

/** List bodies from item bytes: a big one streams in chunks that add up to exactly the one-buffer body. */
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { jsonListBody } from '../../../lib/api/json-list-body';
import { encodeForStorage, joinJson, servedJson } from '../../../lib/scheme/storage-codec';

function items(n: number) {
  return Array.from({ length: n }, (_, i) => servedJson(encodeForStorage({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'ns' }, data: { payload: 'x'.repeat(1000 + (i % 7)) },
  }), 100 + i)!);
}

async function collect(body: Buffer | Readable): Promise<{ bytes: Buffer; chunks: number }> {
  if (Buffer.isBuffer(body)) return { bytes: body, chunks: 1 };
  const parts: Buffer[] = [];
  for await (const c of body) parts.push(c as Buffer);
  return { bytes: Buffer.concat(parts), chunks: parts.length };
}

describe('JSON list bodies', () => {
  it('a small list is one buffer', async () => {
    const list = items(10);
    const b = jsonListBody('{"items":[', list, ']}\n');
    expect(Buffer.isBuffer(b.body)).to.equal(true);
    expect(b.length).to.equal((b.body as Buffer).length);
    expect(JSON.parse((b.body as Buffer).toString()).items).to.have.length(10);
  });

  it('a big list streams in chunks whose bytes are the one-buffer body, with the right length', async () => {
    const list = items(5000);
    const b = jsonListBody('{"kind":"ConfigMapList","items":[', list, ']}\n');
    expect(Buffer.isBuffer(b.body)).to.equal(false);
    const { bytes, chunks } = await collect(b.body);
    expect(chunks).to.be.greaterThan(4);
    expect(bytes.length).to.equal(b.length);
    expect(bytes.equals(joinJson('{"kind":"ConfigMapList","items":[', list, ']}\n'))).to.equal(true);
    const parsed = JSON.parse(bytes.toString());
    expect(parsed.items).to.have.length(5000);
    expect(parsed.items[4999].metadata).to.include({ name: 'cm-4999', resourceVersion: '5099' });
  });
});

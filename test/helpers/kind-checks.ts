/**
 * Checks the per-kind integration suites share: a refused write leaves the store as it was, and
 * an Invalid Status names Kubernetes' causes (field path, reason, message).
 */
import { expect } from 'chai';
import { HttpResponse, TestServer } from './server-harness';

export interface Cause { field: string; reason: string; message: string }

/** Runs `write` and expects every object listed at `listPath` to keep its name and resourceVersion. */
export async function rejectedLeavingStore(t: TestServer, listPath: string, write: () => Promise<HttpResponse>): Promise<HttpResponse> {
  const versions = async () => ((await t.get(listPath)).body.items as Array<{ metadata: { name: string; resourceVersion: string } }>)
    .map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`);
  const before = await versions();
  const res = await write();
  expect(await versions(), 'the failed write changed the store').to.deep.equal(before);
  return res;
}

/** A 422 Invalid Status about a `kind`, whose causes are exactly `causes` (in any order). */
export function expectInvalidCauses(res: HttpResponse, kind: string, causes: Cause[]): void {
  expect(res.status, res.text).to.equal(422);
  expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
  expect(res.body.details.kind).to.equal(kind);
  expect((res.body.details.causes as Cause[]).map((c) => ({ field: c.field, reason: c.reason, message: c.message }))).to.have.deep.members(causes);
}

/** Request options asking for a meta/v1 Table (kubectl's printed columns). */
export const TABLE = { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } };

/** A merge patch of `url`. */
export const mergePatch = (t: TestServer, url: string, patch: unknown): Promise<HttpResponse> =>
  t.request('PATCH', url, { raw: JSON.stringify(patch), headers: { 'Content-Type': 'application/merge-patch+json' } });

/** A 403 Forbidden Status with exactly `message` (an admission plugin's or a strategy's refusal). */
export function expectForbidden(res: HttpResponse, message: string): void {
  expect(res.status, res.text).to.equal(403);
  expect(res.body).to.include({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message });
}

/**
 * Custom resources over HTTP for integration tests: install a CronTab CRD (cronTabCrd) through
 * the API and wait until it is served, build CronTab objects, PATCH with a content type, and
 * read a Status's causes as `field|reason|message` lines.
 */
import { expect } from 'chai';
import { HttpResponse, TestServer, eventually } from './server-harness';
import { CronTabOptions, cronTabCrd } from './crd-fixtures';

type Obj = Record<string, any>;

/** The CRD collection path (default flavor). */
export const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';

/** Status causes as `field|reason|message`, in the order served. */
export function causes(res: HttpResponse): string[] {
  return (res.body.details?.causes ?? []).map((c: Obj) => `${c.field}|${c.reason}|${c.message}`);
}

/** A CronTab of `group`/`version` named `name` (metadata and status from `extra`). */
export function ct(group: string, name: string, spec: Obj = {}, extra: Obj = {}, version = 'v1'): Obj {
  return { apiVersion: `${group}/${version}`, kind: 'CronTab', metadata: { name, ...extra.metadata }, spec, ...(extra.status ? { status: extra.status } : {}) };
}

/** Helpers bound to a server and a namespace. */
export function crdHttp(server: () => TestServer, namespace: string) {
  const t = () => server();
  return {
    /** Creates the CronTab CRD of `opts` in `group` (status left to the controllers) and waits until served. */
    async install(group: string, opts: CronTabOptions = {}): Promise<Obj> {
      const fixture = cronTabCrd({ ...opts, group });
      const body = { apiVersion: 'apiextensions.orch.io/v1', kind: 'CustomResourceDefinition', metadata: { name: fixture.metadata?.name }, spec: fixture.spec };
      const res = await t().post(CRDS, body);
      expect(res.status, res.text).to.equal(201);
      const version = (opts.versions ?? ['v1'])[0];
      await eventually(async () => (await t().get(`/apis/${group}/${version}/crontabs`)).status === 200, 5000, 20);
      return res.body;
    },
    /** The namespaced collection path of CronTabs of `group`/`version`. */
    base: (group: string, version = 'v1') => `/apis/${group}/${version}/namespaces/${namespace}/crontabs`,
    /** PATCH with `type`; a string body is sent as is. */
    patch: (path: string, type: string, body: unknown, headers: Record<string, string> = {}) =>
      t().request('PATCH', path, { [typeof body === 'string' ? 'raw' : 'body']: body, headers: { 'content-type': type, ...headers } } as Obj),
    /** POSTs `obj`, expects 201, returns the object. */
    async created(path: string, obj: Obj): Promise<Obj> {
      const res = await t().post(path, obj);
      expect(res.status, res.text).to.equal(201);
      return res.body;
    },
  };
}

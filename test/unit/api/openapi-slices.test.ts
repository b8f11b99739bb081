/**
 * The `/openapi/v2` document built and serialized in slices of the event loop
 * (lib/api/openapi/time-slice.ts, sliced-json.ts, v2.ts openApiV2Steps): the same document and
 * the same bytes and hash as in one piece, and the event loop gets its turns while it is made.
 */
import { expect } from 'chai';
import { buildOpenApiV2, openApiV2Steps } from '../../../lib/api/openapi/v2';
import { servedDocument } from '../../../lib/api/openapi/documents';
import { servedSteps } from '../../../lib/api/openapi/sliced-json';
import { runAtOnce, runInSlices, TimeSlice } from '../../../lib/api/openapi/time-slice';
import { flavors } from '../../../lib/naming';
import { builtinResources } from '../../../lib/registry/builtin';

const info = { title: 'Kubernetes', version: 'v1.32.0-test' };

describe('OpenAPI v2 in slices of the event loop', () => {
  const resources = builtinResources(flavors.kubernetes);

  it('the document built in steps is the one built at once', async () => {
    const sliced = await runInSlices(openApiV2Steps(resources, flavors.kubernetes, info), new TimeSlice(0));
    expect(JSON.stringify(sliced)).to.equal(JSON.stringify(buildOpenApiV2(resources, flavors.kubernetes, info)));
  });

  it('serialized in steps: JSON.stringify\'s bytes and their SHA-512', () => {
    const doc = buildOpenApiV2(resources, flavors.kubernetes, info);
    const whole = servedDocument(doc);
    const sliced = runAtOnce(servedSteps(doc));
    expect(sliced.hash).to.equal(whole.hash);
    expect(sliced.body.equals(whole.body)).to.equal(true);
  });

  it('serialized in steps: what JSON.stringify leaves out or turns, at every level', () => {
    const odd = {
      a: undefined, b: () => 1, c: null, d: [1, undefined, 'x'], e: { f: undefined, g: { h: [{}], i: 'é"\n' } },
      j: new Date(0), k: { toJSON: () => 'mine' }, '1': 'numeric key first', l: 1.5e300, m: {},
    };
    for (const depth of [0, 1, 2, 3]) {
      expect(runAtOnce(servedSteps(odd, depth)).body.toString('utf8'), `depth ${depth}`).to.equal(JSON.stringify(odd));
    }
  });

  it('gives the event loop turns while it runs', async () => {
    let turns = 0;
    let running = true;
    const tick = () => { if (running) { turns++; setImmediate(tick); } };
    setImmediate(tick);
    const doc = await runInSlices(openApiV2Steps(resources, flavors.kubernetes, info), new TimeSlice(0));
    await runInSlices(servedSteps(doc), new TimeSlice(0));
    running = false;
    // A turn at least every step: one per resource, group-version and top-level entry.
    expect(turns).to.be.greaterThan(resources.length);
  });
});

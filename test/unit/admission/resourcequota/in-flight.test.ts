/**
 * The record of charges whose objects are not written yet (in-flight.ts): the quota controller
 * waits for the entries of a namespace open when it asks, and for no others.
 */
import { expect } from 'chai';
import { InFlightCharges } from '../../../../lib/admission/resourcequota/in-flight';

/** Whether `p` has settled once the microtasks queued so far have run. */
async function isSettled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => { done = true; });
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('ResourceQuota in-flight charges', () => {
  it('settles a namespace once every entry open when asked is closed, whatever opens after', async () => {
    const record = new InFlightCharges();
    const a = record.open('ns');
    const b = record.open('ns');
    const other = record.open('elsewhere');
    const settled = record.settled('ns');
    const later = record.open('ns');
    a.close();
    expect(await isSettled(settled)).to.equal(false);
    b.close();
    expect(await isSettled(settled)).to.equal(true);
    expect(await isSettled(record.settled('ns'))).to.equal(false);
    later.close();
    other.close();
    expect(await isSettled(record.settled('ns'))).to.equal(true);
  });

  it('settles at once a namespace with nothing open, and a close twice changes nothing', async () => {
    const record = new InFlightCharges();
    expect(await isSettled(record.settled('ns'))).to.equal(true);
    const a = record.open('ns');
    a.close();
    a.close();
    expect(await isSettled(record.settled('ns'))).to.equal(true);
  });
});

/**
 * The watch cache's chunked key order against a plain model (a sorted array): random inserts,
 * removals and prefix ranges with start keys and limits, across many chunk splits and merges.
 */
import { expect } from 'chai';
import { SortedKeys } from '../../../lib/storage/cacher/sorted-keys';
import { compareKeys, lowerBound } from '../../../lib/storage/cacher/key-order';

/** A small deterministic generator, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function modelRange(model: string[], from: string, prefix: string, limit: number) {
  const inRange = model.filter((k) => compareKeys(k, from) >= 0 && k.startsWith(prefix));
  return { keys: limit > 0 ? inRange.slice(0, limit) : inRange, count: inRange.length };
}

describe('SortedKeys', () => {
  it('agrees with a sorted array through 10,000 random changes and ranges', function () {
    this.timeout(20_000);
    const rand = rng(7);
    const keys = new SortedKeys();
    const model: string[] = [];
    const prefixes = ['/r/a/', '/r/b/', '/r/c/', '/r/'];
    const keyAt = () => `${prefixes[Math.floor(rand() * 3)]}k${Math.floor(rand() * 1500).toString().padStart(4, '0')}`;
    for (let step = 0; step < 10_000; step++) {
      const key = keyAt();
      const i = model.indexOf(key);
      if (i >= 0 && rand() < 0.45) {
        expect(keys.remove(key)).to.equal(true);
        model.splice(i, 1);
      } else if (i < 0) {
        keys.insert(key);
        let at = 0;
        while (at < model.length && compareKeys(model[at], key) < 0) at++;
        model.splice(at, 0, key);
      } else {
        expect(keys.remove(`${key}-absent`)).to.equal(false);
      }
      if (step % 500 === 0) {
        expect(keys.length).to.equal(model.length);
        for (const prefix of prefixes) {
          for (const limit of [0, 1, 37, 600]) {
            const from = rand() < 0.5 ? prefix : `${prefix}k${Math.floor(rand() * 1500)}`;
            expect(keys.range(from, prefix, limit), `${from} ${limit}`).to.deep.equal(modelRange(model, from, prefix, limit));
          }
        }
      }
    }
  });

  it('orders keys by their UTF-8 bytes, as etcd does, also when some keys have characters above U+D7FF', () => {
    // Native `<` is used for search keys without such code units; it must agree with etcd's
    // order against stored keys that have them (surrogate pairs and U+E000..U+FFFF sort apart
    // in UTF-16 and UTF-8).
    const rand = rng(11);
    const alphabet = ['a', 'z', '~', '\u00e9', '\ud7ff', '\ue000', '\ufffd', '\ud83d\ude00', '\ud800\udc00'];
    const word = () => Array.from({ length: 1 + Math.floor(rand() * 4) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
    const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const keys = new SortedKeys();
    const stored = new Set<string>();
    for (let i = 0; i < 3_000; i++) {
      const key = `/r/${word()}`;
      if (stored.has(key)) continue;
      stored.add(key);
      keys.insert(key);
    }
    const byBytes = [...stored].sort(bytes);
    expect(keys.range('/r/', '/r/', 0).keys).to.deep.equal(byBytes);
    for (let i = 0; i < 2_000; i++) {
      const probe = `/r/${word()}`;
      expect(lowerBound(byBytes, probe), probe).to.equal(byBytes.filter((k) => bytes(k, probe) < 0).length);
      expect(keys.range(probe, '/r/', 1).keys[0], probe).to.equal(byBytes.find((k) => bytes(k, probe) >= 0));
    }
  });

  it('reset takes a sorted list; ranges past the end and on an empty set are empty', () => {
    const keys = new SortedKeys();
    expect(keys.range('/a/', '/a/', 0)).to.deep.equal({ keys: [], count: 0 });
    const sorted = Array.from({ length: 2000 }, (_, i) => `/a/${String(i).padStart(5, '0')}`);
    keys.reset(sorted);
    expect(keys.length).to.equal(2000);
    expect(keys.range('/a/', '/a/', 0).keys).to.deep.equal(sorted);
    expect(keys.range('/a/01999', '/a/', 0)).to.deep.equal({ keys: ['/a/01999'], count: 1 });
    expect(keys.range('/b/', '/b/', 0)).to.deep.equal({ keys: [], count: 0 });
    expect(keys.range('/a/00500', '/a/', 3)).to.deep.equal({ keys: ['/a/00500', '/a/00501', '/a/00502'], count: 1500 });
  });

  it('chunks that empty are dropped: removing every key and adding again works', () => {
    const keys = new SortedKeys();
    const all = Array.from({ length: 3000 }, (_, i) => `/p/${String(i).padStart(5, '0')}`);
    for (const k of all) keys.insert(k);
    for (const k of all.slice(0, 2990)) expect(keys.remove(k)).to.equal(true);
    expect(keys.range('/p/', '/p/', 0)).to.deep.equal({ keys: all.slice(2990), count: 10 });
    for (const k of all.slice(2990)) keys.remove(k);
    expect(keys.length).to.equal(0);
    expect(keys.range('/p/', '/p/', 0)).to.deep.equal({ keys: [], count: 0 });
    keys.insert('/p/x');
    expect(keys.range('/p/', '/p/', 0)).to.deep.equal({ keys: ['/p/x'], count: 1 });
  });
});

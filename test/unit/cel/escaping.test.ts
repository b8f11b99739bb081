/**
 * Property-name escaping as Kubernetes escapes it (k8s.io/apiserver/pkg/cel escaping): rule authors
 * write `self.x__dash__y` for a property "x-y"; the cases are Kubernetes' own escaping table, and a
 * name Kubernetes cannot escape is not accessible.
 */

import { expect } from 'chai';
import { escapeCelName, unescapeCelName } from '../../../lib/cel/escaping';

describe('cel: property-name escaping', () => {
  const table: Array<[string, string]> = [
    ['i', 'i'],
    ['_i', '_i'],
    ['i_', 'i_'],
    ['__i', '__underscores__i'],
    ['i__', 'i__underscores__'],
    ['i__i', 'i__underscores__i'],
    ['i___i', 'i__underscores___i'],
    ['i.i', 'i__dot__i'],
    ['i-i', 'i__dash__i'],
    ['i/i', 'i__slash__i'],
    ['i.-/i', 'i__dot____dash____slash__i'],
    ['apps/v1.deployment-name', 'apps__slash__v1__dot__deployment__dash__name'],
    ['true', '__true__'],
    ['namespace', '__namespace__'],
    ['return', '__return__'],
    ['if', '__if__'],
    ['int', 'int'],
  ];
  for (const [name, escaped] of table) {
    it(`escapes ${JSON.stringify(name)} as ${escaped} and back`, () => {
      expect(escapeCelName(name)).to.equal(escaped);
      expect(unescapeCelName(escaped)).to.equal(name);
    });
  }

  for (const name of ['', '1', '1a', 'i?', 'i@x', 'a b', 'ñ']) {
    it(`cannot escape ${JSON.stringify(name)} (not accessible from CEL)`, () => {
      expect(escapeCelName(name)).to.equal(undefined);
    });
  }
});

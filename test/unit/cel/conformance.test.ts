/**
 * The Common Expression Language's own conformance suite (cel-spec, from @bufbuild/cel-spec) on the
 * environment Kubernetes callers get: each section that applies must pass except the listed known
 * failures (conformance-known.ts, each with a reason); a newly failing case or a listed case that now
 * passes fails its section. Sections that need protobuf messages or libraries Kubernetes 1.32 does
 * not enable are skipped by name with the reason.
 */

import { expect } from 'chai';
import { getConformanceSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { runCase, type PbSimpleTest } from './conformance-run';
import { KNOWN_FAILURES, REASONS } from './conformance-known';

/** Sections not run, with why. */
const SKIPPED_SECTIONS: Record<string, string> = {
  dynamic: 'protobuf message and wrapper types (Kubernetes objects are not protobuf messages in CEL)',
  enums: 'protobuf enums',
  proto2: 'protobuf messages',
  proto2_ext: 'protobuf extensions',
  proto3: 'protobuf messages',
  wrappers: 'protobuf wrapper types',
  namespace: 'containers (protobuf packages)',
  block_ext: 'cel.block is not in Kubernetes 1.32',
  math_ext: 'the math extension is not in Kubernetes 1.32',
  encoders_ext: 'the encoders extension (base64) is not in Kubernetes 1.32',
  unknowns: 'unknown values are not used by Kubernetes',
};

interface Suite { name: string; suites: Suite[]; tests: Array<{ name: string; original: PbSimpleTest }> }

function collect(s: Suite, path: string, out: Array<{ path: string; test: PbSimpleTest }>): void {
  for (const t of s.tests) out.push({ path: `${path}/${t.name}`, test: t.original });
  for (const c of s.suites) collect(c, path ? `${path}/${c.name}` : c.name, out);
}

describe('cel conformance (cel-spec)', () => {
  const root = getConformanceSuite() as unknown as Suite;
  const totals = { cases: 0, skipped: 0, notApplicable: 0, passed: 0, knownFailures: 0 };

  for (const section of root.suites) {
    const cases: Array<{ path: string; test: PbSimpleTest }> = [];
    collect(section, section.name, cases);
    totals.cases += cases.length;
    if (SKIPPED_SECTIONS[section.name]) {
      totals.skipped += cases.length;
      continue;
    }
    it(`${section.name}: ${cases.length} cases pass except the known failures`, () => {
      const regressions: string[] = [];
      const fixed: string[] = [];
      for (const { path, test } of cases) {
        const outcome = runCase(test);
        const known = KNOWN_FAILURES[path];
        if (outcome.status === 'not-applicable') totals.notApplicable++;
        else if (outcome.status === 'pass') {
          totals.passed++;
          if (known) fixed.push(path);
        } else if (known) {
          totals.knownFailures++;
          expect(REASONS[known], path).to.be.a('string');
        } else {
          regressions.push(`${path} (${test.expr}): ${outcome.detail}`);
        }
      }
      expect(regressions, 'cases that fail and are not known failures').to.deep.equal([]);
      expect(fixed, 'known failures that now pass: remove them from conformance-known.ts').to.deep.equal([]);
    });
  }

  after(() => {
    const applicable = totals.cases - totals.skipped - totals.notApplicable;
    // The numbers the report quotes.
    console.log(`      conformance: ${totals.cases} cases, ${totals.skipped} in skipped sections, ${totals.notApplicable} need protobuf messages; ${applicable} apply: ${totals.passed} pass, ${totals.knownFailures} known failures`);
  });
});

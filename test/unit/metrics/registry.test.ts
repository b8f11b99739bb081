import { expect } from 'chai';
import { annotatedHelp, isHidden, MetricsRegistry, showHiddenVersionProblem } from '../../../lib/metrics/registry';
import { parseExposition } from '../../helpers/prom-text';

/** A registry whose warnings are kept. */
function registry(showHiddenForVersion = '') {
  const warnings: string[] = [];
  const metrics = new MetricsRegistry({ showHiddenForVersion, warn: (m) => warnings.push(m) });
  return { metrics, warnings };
}

describe('MetricsRegistry: stability levels and the deprecated/hidden lifecycle', () => {
  it('annotates HELP with the stability level, ALPHA by default', async () => {
    const { metrics, warnings } = registry();
    metrics.counter({ name: 'x_stable_total', help: 'Stable one.', stability: 'STABLE' }).inc();
    metrics.counter({ name: 'x_alpha_total', help: 'Alpha one.' }).inc();
    const text = parseExposition(await metrics.render());
    expect(text.help.get('x_stable_total')).to.equal('[STABLE] Stable one.');
    expect(text.help.get('x_alpha_total')).to.equal('[ALPHA] Alpha one.');
    expect(warnings).to.deep.equal([]);
  });

  it('a deprecated metric still shown: help starts with the deprecation note and its registration logs a warning', async () => {
    const { metrics, warnings } = registry();
    // STABLE deprecated in 1.31: shown for 3 releases.
    metrics.counter({ name: 'x_old_total', help: 'Old one.', stability: 'STABLE', deprecatedVersion: '1.31' }).inc(2);
    const text = parseExposition(await metrics.render());
    expect(text.help.get('x_old_total')).to.equal('[STABLE] (Deprecated since 1.31.0) Old one.');
    expect(text.value('x_old_total')).to.equal(2);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain('x_old_total').and.contain('deprecated since 1.31');
  });

  it('a hidden metric is absent from render() and takes recordings without error', async () => {
    const { metrics, warnings } = registry();
    // ALPHA deprecated in 1.31 is hidden in 1.32.
    const hidden = metrics.counter({ name: 'x_hidden_total', help: 'Hidden one.', deprecatedVersion: '1.31' });
    hidden.inc();
    const text = await metrics.render();
    expect(text).not.to.contain('x_hidden_total');
    expect(metrics.descriptions().find((d) => d.name === 'x_hidden_total')).to.include({ hidden: true, exposed: false });
    expect(warnings).to.deep.equal([]);
  });

  it('--show-hidden-metrics-for-version=1.31 shows the hidden metric again, with its note and a warning', async () => {
    const { metrics, warnings } = registry('1.31');
    metrics.counter({ name: 'x_hidden_total', help: 'Hidden one.', deprecatedVersion: '1.31' }).inc(3);
    const text = parseExposition(await metrics.render());
    expect(text.help.get('x_hidden_total')).to.equal('[ALPHA] (Deprecated since 1.31.0) Hidden one.');
    expect(text.value('x_hidden_total')).to.equal(3);
    expect(warnings.join('\n')).to.contain('x_hidden_total');
  });

  it('hides STABLE metrics 3 releases after deprecation, ALPHA and BETA after 1', () => {
    expect(isHidden('STABLE', '1.30')).to.equal(false);
    expect(isHidden('STABLE', '1.29')).to.equal(true);
    expect(isHidden('BETA', '1.32')).to.equal(false);
    expect(isHidden('BETA', '1.31')).to.equal(true);
    expect(isHidden('ALPHA', undefined)).to.equal(false);
    expect(annotatedHelp({ name: 'a', help: 'h', stability: 'BETA', deprecatedVersion: '1.30.2' })).to.equal('[BETA] (Deprecated since 1.30.2) h');
  });

  it('refuses --show-hidden-metrics-for-version other than the previous minor release', () => {
    expect(showHiddenVersionProblem('')).to.equal(undefined);
    expect(showHiddenVersionProblem('1.31')).to.equal(undefined);
    for (const bad of ['1.30', '1.32', '2.31', '1.31.0', 'abc', '1']) {
      expect(showHiddenVersionProblem(bad), bad).to.equal(
        "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed");
    }
    expect(() => new MetricsRegistry({ showHiddenForVersion: '1.30' })).to.throw(/Only the previous minor version is allowed/);
  });

  it('disabled: every metric is a no-op and nothing is rendered', async () => {
    const metrics = new MetricsRegistry({ enabled: false });
    const c = metrics.counter({ name: 'x_total', help: 'h', labelNames: ['a'] });
    c.labels('v').inc();
    metrics.histogram({ name: 'x_seconds', help: 'h', buckets: [1] }).observe(1);
    expect((await metrics.render()).trim()).to.equal('');
  });

  it('refuses a metric defined twice', () => {
    const { metrics } = registry();
    metrics.counter({ name: 'x_total', help: 'h' });
    expect(() => metrics.gauge({ name: 'x_total', help: 'h' })).to.throw(/defined twice/);
  });
});

/** Test helper: the verdict of PodSecurity's evaluator on a pod spec at a level and version. */
import { Evaluator, forbiddenDetail } from '../../../lib/admission/pod-security/evaluator';
import { LATEST, Level, v1 } from '../../../lib/admission/pod-security/levels';

export const kubeEvaluator = new Evaluator('kubernetes.io');
export const orchEvaluator = new Evaluator('orch.io');

/** The forbidden detail of a pod at a level and version ('' when allowed). */
export function verdict(level: Level, version: number | 'latest', spec: Record<string, unknown>, annotations: Record<string, string> = {},
  ev = kubeEvaluator): string {
  const r = ev.evaluateAggregate({ level, version: version === 'latest' ? LATEST : v1(version) }, { annotations, spec });
  return r.allowed ? '' : forbiddenDetail(r);
}

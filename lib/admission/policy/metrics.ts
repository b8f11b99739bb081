/**
 * ValidatingAdmissionPolicy's metrics as Kubernetes 1.32 names them
 * (k8s.io/apiserver pkg/admission/plugin/policy/validating/metrics): one count and one latency
 * observation per (policy, binding) evaluation, labelled with the policy, the binding, the
 * enforcement action taken (allow, deny, warn, audit) and the error type (no_error, invalid_error,
 * compile_error).
 */
import { MetricsRegistry } from '../../metrics/registry';

export type EnforcementAction = 'allow' | 'deny' | 'warn' | 'audit';
export type PolicyErrorType = 'no_error' | 'invalid_error' | 'compile_error';

const LABELS = ['policy', 'policy_binding', 'enforcement_action', 'error_type'] as const;
const BUCKETS = [0.0000005, 0.001, 0.01, 0.1, 1.0];

export class PolicyMetrics {
  private readonly check;
  private readonly duration;

  constructor(registry: MetricsRegistry) {
    this.check = registry.counter({
      name: 'apiserver_validating_admission_policy_check_total', labelNames: [...LABELS],
      help: 'Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
    });
    this.duration = registry.histogram({
      name: 'apiserver_validating_admission_policy_check_duration_seconds', labelNames: [...LABELS], buckets: BUCKETS,
      help: 'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    });
  }

  /** One evaluation of a policy through a binding. */
  observe(policy: string, binding: string, action: EnforcementAction, errorType: PolicyErrorType, seconds: number): void {
    this.check.labels(policy, binding, action, errorType).inc();
    this.duration.labels(policy, binding, action, errorType).observe(seconds);
  }
}

/**
 * Schemas of a container's probes and lifecycle hooks (core/v1 Probe, ProbeHandler, Lifecycle,
 * LifecycleHandler and their actions), with Kubernetes' field names, required fields and list markers.
 */
import { goType } from '../../../scheme/type-names';
import { Schema, atomicList, int32, int64, object, str } from '../../../scheme/schema';

/** intstr.IntOrString: a port number or an IANA port name. */
export const intOrString: Schema = { type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true };

/** core/v1 ExecAction. */
export const execAction: Schema = goType('io.k8s.api.core.v1.ExecAction', object({
  command: atomicList(str()),
}));

/** core/v1 HTTPHeader. */
export const httpHeader: Schema = goType('io.k8s.api.core.v1.HTTPHeader', object({
  name: str(),
  value: str(),
}, { required: ['name', 'value'] }));

/** core/v1 HTTPGetAction. */
export const httpGetAction: Schema = goType('io.k8s.api.core.v1.HTTPGetAction', object({
  path: str(),
  port: intOrString,
  host: str(),
  scheme: str(),
  httpHeaders: atomicList(httpHeader),
}, { required: ['port'] }));

/** core/v1 TCPSocketAction. */
export const tcpSocketAction: Schema = goType('io.k8s.api.core.v1.TCPSocketAction', object({
  port: intOrString,
  host: str(),
}, { required: ['port'] }));

/** core/v1 GRPCAction. */
export const grpcAction: Schema = goType('io.k8s.api.core.v1.GRPCAction', object({
  port: int32(),
  service: { ...str(), default: '' },
}, { required: ['port'] }));

/** core/v1 SleepAction. */
export const sleepAction: Schema = goType('io.k8s.api.core.v1.SleepAction', object({
  seconds: int64(),
}, { required: ['seconds'] }));

/** core/v1 ProbeHandler. */
export const probeHandler: Schema = object({
  exec: execAction,
  httpGet: httpGetAction,
  tcpSocket: tcpSocketAction,
  grpc: grpcAction,
});

/** core/v1 Probe. */
export const probe: Schema = goType('io.k8s.api.core.v1.Probe', object({
  ...probeHandler.properties,
  initialDelaySeconds: int32(),
  timeoutSeconds: int32(),
  periodSeconds: int32(),
  successThreshold: int32(),
  failureThreshold: int32(),
  terminationGracePeriodSeconds: int64(),
}));

/** core/v1 LifecycleHandler. */
export const lifecycleHandler: Schema = goType('io.k8s.api.core.v1.LifecycleHandler', object({
  exec: execAction,
  httpGet: httpGetAction,
  tcpSocket: tcpSocketAction,
  sleep: sleepAction,
}));

/** core/v1 Lifecycle. */
export const lifecycle: Schema = goType('io.k8s.api.core.v1.Lifecycle', object({
  postStart: lifecycleHandler,
  preStop: lifecycleHandler,
}));

"""Debian's python3-kubernetes typed workload APIs, driven by test/e2e/python-workloads.test.ts.

Subcommands (each prints JSON lines on stdout):
  list NS        lists Deployments, ReplicaSets, StatefulSets, DaemonSets (AppsV1Api), Jobs and
                 CronJobs (BatchV1Api) and HorizontalPodAutoscalers (AutoscalingV1Api) typed, then
                 prints {"kind": ..., "names": [...], "resourceVersion": ...} per kind.
  watch NS N     lists Deployments and Jobs, then watches both from their lists' versions (two
                 threads) and prints {"kind", "type", "name", "replicas"|"completions"} until N
                 events have been printed.
  scale NS NAME  creates a Deployment from typed models, reads its Scale, patches it to 3
                 replicas through the scale subresource, and prints the Scale before and after
                 and the Deployment's spec.replicas.
The typed models check required fields client-side: an object the server answers without one
(a Deployment without spec.selector) makes the script fail.
"""
import json
import sys
import threading

import kubernetes
from kubernetes import client


EMIT_LOCK = threading.Lock()


def emit(**fields):
    # One write per line, under a lock: the watch threads print concurrently.
    with EMIT_LOCK:
        sys.stdout.write(json.dumps(fields) + '\n')
        sys.stdout.flush()


def lists(ns):
    apps = client.AppsV1Api()
    batch = client.BatchV1Api()
    # 22.6 predates autoscaling/v2's client: the HPAs are listed at v1, converted by the server.
    autoscaling = client.AutoscalingV1Api()
    calls = [
        ('Deployment', apps.list_namespaced_deployment),
        ('ReplicaSet', apps.list_namespaced_replica_set),
        ('StatefulSet', apps.list_namespaced_stateful_set),
        ('DaemonSet', apps.list_namespaced_daemon_set),
        ('Job', batch.list_namespaced_job),
        ('CronJob', batch.list_namespaced_cron_job),
    ]
    calls.append(('HorizontalPodAutoscaler', autoscaling.list_namespaced_horizontal_pod_autoscaler))
    for kind, call in calls:
        lst = call(ns)
        emit(kind=kind, names=sorted(o.metadata.name for o in lst.items), resourceVersion=lst.metadata.resource_version)


def watch(ns, count):
    apps = client.AppsV1Api()
    batch = client.BatchV1Api()
    printed = []
    lock = threading.Lock()
    done = threading.Event()

    def follow(kind, call, detail):
        rv = call(ns).metadata.resource_version
        emit(kind=kind, type='LISTED', resourceVersion=rv)
        w = kubernetes.watch.Watch()
        for event in w.stream(call, ns, resource_version=rv, timeout_seconds=60):
            obj = event['object']
            with lock:
                emit(kind=kind, type=event['type'], name=obj.metadata.name, **detail(obj))
                printed.append(1)
                if len(printed) >= count:
                    done.set()
            if done.is_set():
                w.stop()
                return

    threads = [
        threading.Thread(target=follow, daemon=True, args=('Deployment', apps.list_namespaced_deployment,
                                                           lambda d: {'replicas': d.spec.replicas})),
        threading.Thread(target=follow, daemon=True, args=('Job', batch.list_namespaced_job,
                                                           lambda j: {'completions': j.spec.completions})),
    ]
    for t in threads:
        t.start()
    done.wait(90)


def scale(ns, name):
    apps = client.AppsV1Api()
    labels = {'app': name}
    body = client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name, labels=labels),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name='web', image='nginx:1.27')]))))
    created = apps.create_namespaced_deployment(ns, body)
    emit(step='created', replicas=created.spec.replicas, strategy=created.spec.strategy.type,
         maxSurge=created.spec.strategy.rolling_update.max_surge)
    before = apps.read_namespaced_deployment_scale(name, ns)
    emit(step='scale', replicas=before.spec.replicas, selector=before.status.selector)
    after = apps.patch_namespaced_deployment_scale(name, ns, {'spec': {'replicas': 3}})
    emit(step='scaled', replicas=after.spec.replicas)
    emit(step='deployment', replicas=apps.read_namespaced_deployment(name, ns).spec.replicas)


def main():
    kubernetes.config.load_kube_config(config_file=sys.argv[1])
    cmd = sys.argv[2]
    if cmd == 'list':
        lists(sys.argv[3])
    elif cmd == 'watch':
        watch(sys.argv[3], int(sys.argv[4]))
    elif cmd == 'scale':
        scale(sys.argv[3], sys.argv[4])
    else:
        raise SystemExit('unknown command ' + cmd)


if __name__ == '__main__':
    main()

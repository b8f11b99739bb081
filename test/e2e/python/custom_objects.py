"""Custom resources through Debian's python3-kubernetes CustomObjectsApi, driven by
test/e2e/kubectl-crd.test.ts.

Lists the objects of one plural in a namespace (list_namespaced_custom_object), then watches them
from the list's resourceVersion (watch.Watch().stream over the same call), printing one JSON line
per step on stdout:
  {"type": "LISTED", "resourceVersion": ..., "items": [{"name": ..., "kind": ..., "spec": {...}}]}
  {"type": "ADDED"|"MODIFIED"|"DELETED", "name": ..., "kind": ..., "spec": {...}}
Ends after --run-seconds; any error ends it with exit code 1.
"""
import argparse
import json
import sys
import time

import kubernetes


def emit(**fields):
    print(json.dumps(fields), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--kubeconfig', required=True)
    parser.add_argument('--group', required=True)
    parser.add_argument('--version', required=True)
    parser.add_argument('--namespace', required=True)
    parser.add_argument('--plural', required=True)
    parser.add_argument('--run-seconds', type=float, default=30)
    args = parser.parse_args()

    kubernetes.config.load_kube_config(config_file=args.kubeconfig)
    api = kubernetes.client.CustomObjectsApi()
    deadline = time.monotonic() + args.run_seconds

    lst = api.list_namespaced_custom_object(args.group, args.version, args.namespace, args.plural)
    rv = lst['metadata']['resourceVersion']
    emit(type='LISTED', resourceVersion=rv,
         items=[{'name': o['metadata']['name'], 'kind': o['kind'], 'spec': o.get('spec')} for o in lst['items']])

    while time.monotonic() < deadline:
        watch = kubernetes.watch.Watch()
        for event in watch.stream(api.list_namespaced_custom_object, args.group, args.version,
                                  args.namespace, args.plural, resource_version=rv, timeout_seconds=5):
            obj = event['object']
            rv = obj['metadata']['resourceVersion']
            emit(type=event['type'], name=obj['metadata']['name'], kind=obj['kind'], spec=obj.get('spec'))
            if time.monotonic() >= deadline:
                watch.stop()
                break


if __name__ == '__main__':
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)

"""A list-then-watch client on Debian's python3-kubernetes, driven by test/e2e/python-client.test.ts.

Lists the ConfigMaps of a namespace, then watches them from the list's resourceVersion (or from
--resource-version), printing one JSON line per step on stdout:
  {"type": "LISTED", "resourceVersion": ..., "names": [...]}
  {"type": "ADDED"|"MODIFIED"|"DELETED"|"BOOKMARK", "name": ..., "resourceVersion": ...}
  {"type": "GONE", "status": 410, "resourceVersion": <the version the watch started from>}
  {"type": "RELISTED", "resourceVersion": ..., "names": [...]}
A 410 (ApiException; the library raises it for an HTTP 410, or for an ERROR event with code
410) is recovered as an informer does: re-list, then watch from the fresh list's version.
Runs until --run-seconds have passed or it is killed; any other error ends it with exit code 1.
"""
import argparse
import json
import sys
import time

import kubernetes


def emit(**fields):
    print(json.dumps(fields), flush=True)


def list_names(v1, namespace):
    lst = v1.list_namespaced_config_map(namespace)
    return lst.metadata.resource_version, [cm.metadata.name for cm in lst.items]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--kubeconfig', required=True)
    parser.add_argument('--namespace', required=True)
    parser.add_argument('--resource-version', help='watch from this version instead of the list\'s')
    parser.add_argument('--watch-seconds', type=int, default=30, help='timeout_seconds of each watch')
    parser.add_argument('--run-seconds', type=float, default=60)
    args = parser.parse_args()

    kubernetes.config.load_kube_config(config_file=args.kubeconfig)
    v1 = kubernetes.client.CoreV1Api()
    deadline = time.monotonic() + args.run_seconds

    rv, names = list_names(v1, args.namespace)
    emit(type='LISTED', resourceVersion=rv, names=names)
    if args.resource_version:
        rv = args.resource_version

    while time.monotonic() < deadline:
        watch = kubernetes.watch.Watch()
        try:
            for event in watch.stream(v1.list_namespaced_config_map, args.namespace,
                                      resource_version=rv, allow_watch_bookmarks=True,
                                      timeout_seconds=args.watch_seconds):
                meta = event['raw_object'].get('metadata', {})
                rv = meta.get('resourceVersion', rv)
                emit(type=event['type'], name=meta.get('name'), resourceVersion=meta.get('resourceVersion'))
                if time.monotonic() >= deadline:
                    watch.stop()
                    break
        except kubernetes.client.exceptions.ApiException as err:
            if err.status != 410:
                raise
            emit(type='GONE', status=err.status, resourceVersion=rv)
            rv, names = list_names(v1, args.namespace)
            emit(type='RELISTED', resourceVersion=rv, names=names)
        # A watch that ended at its timeout resumes from the last version seen.


if __name__ == '__main__':
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)

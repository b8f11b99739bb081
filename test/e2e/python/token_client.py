"""Bearer-token calls on Debian's python3-kubernetes, driven by test/e2e/python-client-auth.test.ts.

With --host, --ca and --token-file the client is configured by hand as an application holding a
service-account token does (Configuration with api_key {'authorization': 'Bearer <token>'}, no
client certificate); with --kubeconfig it loads that file. One action per run, one JSON line on
stdout:
  list-namespaces           {"ok": true, "names": [...]}
  create-configmap NS NAME  {"ok": true, "name": ..., "uid": ..., "data": {...}}
  request-token NS NAME     {"ok": true, "token": ..., "expirationSeconds": ...}
An ApiException prints {"ok": false, "status": ..., "reason": ..., "body": <the Status>} (exit 0);
anything else ends the script with exit code 1.
"""
import argparse
import json

import kubernetes
from kubernetes.client.rest import ApiException


def api_client(args):
    if args.kubeconfig:
        return kubernetes.config.new_client_from_config(config_file=args.kubeconfig)
    configuration = kubernetes.client.Configuration()
    configuration.host = args.host
    configuration.ssl_ca_cert = args.ca
    with open(args.token_file) as f:
        configuration.api_key = {'authorization': 'Bearer ' + f.read().strip()}
    return kubernetes.client.ApiClient(configuration)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--kubeconfig')
    parser.add_argument('--host')
    parser.add_argument('--ca')
    parser.add_argument('--token-file')
    parser.add_argument('action', choices=['list-namespaces', 'create-configmap', 'request-token'])
    parser.add_argument('names', nargs='*')
    args = parser.parse_args()

    v1 = kubernetes.client.CoreV1Api(api_client(args))
    try:
        if args.action == 'list-namespaces':
            out = {'names': [ns.metadata.name for ns in v1.list_namespace().items]}
        elif args.action == 'create-configmap':
            namespace, name = args.names
            body = kubernetes.client.V1ConfigMap(metadata=kubernetes.client.V1ObjectMeta(name=name), data={'from': 'python'})
            cm = v1.create_namespaced_config_map(namespace, body)
            out = {'name': cm.metadata.name, 'uid': cm.metadata.uid, 'data': cm.data}
        else:
            namespace, name = args.names
            spec = kubernetes.client.V1TokenRequestSpec(audiences=[], expiration_seconds=900)
            tr = v1.create_namespaced_service_account_token(name, namespace, kubernetes.client.AuthenticationV1TokenRequest(spec=spec))
            out = {'token': tr.status.token, 'expirationSeconds': tr.spec.expiration_seconds}
    except ApiException as e:
        try:
            body = json.loads(e.body)
        except (TypeError, ValueError):
            body = e.body
        print(json.dumps({'ok': False, 'status': e.status, 'reason': e.reason, 'body': body}), flush=True)
        return
    print(json.dumps({'ok': True, **out}), flush=True)


if __name__ == '__main__':
    main()

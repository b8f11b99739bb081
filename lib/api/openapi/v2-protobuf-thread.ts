/**
 * The body of the worker thread that encodes the `/openapi/v2` document as protobuf
 * (./v2-forms.ts): given the JSON document's bytes, it answers the protobuf bytes and their hash, so that the
 * half second or more of parsing and encoding runs beside the server's event loop, not on it.
 * Reads the JSON bytes as gnostic reads them (kube-openapi's ToProtoBinary parses the JSON).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { servedBytes } from './documents';
import { openApiV2ToProtobuf } from './v2-protobuf';

const json = Buffer.from(workerData as Uint8Array).toString('utf8');
parentPort?.postMessage(servedBytes(Buffer.from(openApiV2ToProtobuf(JSON.parse(json)).bytes)));

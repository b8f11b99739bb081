/**
 * The package's entry (`require('orch-apiserver')`): the embedding API for tests. The command
 * line is lib/server/main.ts (`npm start`).
 */
export { startApiServer, startThrowawayEtcd } from './server/embed';
export type { ApiServer, EtcdHandle, StartApiServerOptions } from './server/embed';
export type { Flavor } from './naming';

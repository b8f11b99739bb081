/**
 * A process-wide signal that a storage client has (re)connected to etcd. The Reflectors waiting
 * out a back-off after a lost watch listen to it, so that a watch resumes as soon as etcd can be
 * reached again instead of at the end of the back-off. A spurious signal only costs an earlier
 * retry, so one signal for every client in the process is enough.
 */
import { EventEmitter } from 'node:events';

const emitter = new EventEmitter();
emitter.setMaxListeners(0);

/** Tells the waiting Reflectors that etcd can be reached (a storage client adopted a new connection). */
export function signalReconnected(): void {
  emitter.emit('connected');
}

/** Runs `listener` on the next signal; returns the unsubscribe. */
export function onNextReconnect(listener: () => void): () => void {
  emitter.once('connected', listener);
  return () => { emitter.off('connected', listener); };
}

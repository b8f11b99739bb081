/**
 * The URL clients reach this server at, known only once it listens (the port may be picked
 * then): controllers that start earlier, such as the bootstrap signer, hold this and hear when
 * it is filled.
 */
export class ServerUrlHolder {
  private url?: string;
  private readonly listeners = new Set<(url: string) => void>();

  /** The URL, or undefined before the server listens. */
  get(): string | undefined {
    return this.url;
  }

  /** Filled by the server once it listens. */
  set(url: string): void {
    this.url = url;
    for (const l of this.listeners) l(url);
  }

  /** Calls `listener` each time the URL is set; returns the unsubscribe function. */
  onSet(listener: (url: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
